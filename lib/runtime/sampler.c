/*
 * sampler.c - per-thread sampling timers and the signal handler.
 *
 * The handler allocates nothing, takes no lock and calls only
 * async-signal-safe functions (clock_gettime, the unwinder after its
 * per-thread set-up, and the preallocated calling context tree, which never
 * grows inside a lookup). It records only while the thread is outside every
 * MPI wrapper: all tree updates from the wrappers happen inside a wrapper
 * (depth > 0), so the handler never interrupts one.
 */
#define _GNU_SOURCE
#include "sampler.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "cct.h"
#include "clock.h"
#include "config.h"
#include "log.h"
#include "own_code.h"
#include "signal_chain.h"
#include "signal_route.h"
#include "papi_events.h"
#include "poll_run.h"
#include "thread.h"
#include "unwind.h"

static int sample_signal = SIGPROF;
static struct sigaction previous;
static int installed;
static const int timer_marker; /* its address tells our timer's signals from others */

uint64_t sampler_clock_ns(void)
{
    if (hprof_config.sampling_clock == HPROF_CLOCK_WALL)
        return hprof_now_ns();
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t clock_read_cost_ns; /* sampler_clock_read_cost_ns */

/* One read's cost on the thread's CPU clock: the median of batches of
 * back-to-back reads (from one reading to the next is one whole read). */
static void calibrate_read_cost(void)
{
    enum { BATCHES = 7, READS = 8 };
    uint64_t per[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        uint64_t first = sampler_clock_ns(), last = first;
        for (int i = 0; i < READS; i++)
            last = sampler_clock_ns();
        per[b] = (last - first) / READS;
    }
    for (int i = 1; i < BATCHES; i++) /* insertion sort: seven values */
        for (int j = i; j > 0 && per[j] < per[j - 1]; j--) {
            uint64_t x = per[j];
            per[j] = per[j - 1];
            per[j - 1] = x;
        }
    clock_read_cost_ns = per[BATCHES / 2];
}

uint64_t sampler_clock_read_cost_ns(void)
{
    return clock_read_cost_ns;
}

uint64_t sampler_cpu_read(uint64_t *cost)
{
    uint64_t before = hprof_now_ns();
    uint64_t cpu = sampler_clock_ns();
    uint64_t took = hprof_now_ns() - before;
    *cost = took <= 4 * clock_read_cost_ns ? took : clock_read_cost_ns;
    return cpu;
}

static void histogram_add(hprof_sampling *s, uint64_t weight)
{
    uint64_t nominal = 1000000000ull / (uint64_t)hprof_config.sampling_hz;
    uint64_t bucket = weight * 8 / nominal;
    s->hist[bucket < SAMPLER_HIST_BUCKETS ? bucket : SAMPLER_HIST_BUCKETS]++;
}

static void record_handler_time(hprof_sampling *s, uint64_t spent)
{
    uint64_t bucket = spent / SAMPLER_HANDLER_STEP_NS;
    s->handler_hist[bucket < SAMPLER_HANDLER_BUCKETS ? bucket : SAMPLER_HANDLER_BUCKETS]++;
    s->handler_ns += spent;
    if (spent > s->handler_max_ns)
        s->handler_max_ns = spent;
}

uint64_t sampler_handler_median_ns(const hprof_sampling *s)
{
    uint64_t seen = 0;
    for (int i = 0; i <= SAMPLER_HANDLER_BUCKETS; i++) {
        seen += s->handler_hist[i];
        if (seen * 2 >= s->counted && seen > 0)
            return (uint64_t)i * SAMPLER_HANDLER_STEP_NS + SAMPLER_HANDLER_STEP_NS / 2;
    }
    return 0;
}

/* The effective interval ending now; resets the interval. */
static uint64_t take_interval(hprof_sampling *s, uint64_t now)
{
    uint64_t elapsed = now > s->last_ns ? now - s->last_ns : 0;
    uint64_t weight = elapsed > s->mpi_ns_since ? elapsed - s->mpi_ns_since : 0;
    s->last_ns = now;
    s->mpi_ns_since = 0;
    return weight;
}

/* The node of an interrupted context, or the (unwind failed) node;
 * CCT_NONE with *inside set when a frame is hprof's own code (a wrapper
 * before or after its bookkeeping, the runtime): that sample is in MPI. */
static uint32_t sample_node(hprof_thread *t, void *ucontext, int *failed, int *inside)
{
    /* The leaf key is the interrupted pc + 1 so that, like the return
     * addresses, key - 1 lies inside its function (unwind.h). */
    return unwind_signal_node(&t->tree, ucontext, failed, inside);
}

static void on_sample(int sig, siginfo_t *info, void *ucontext)
{
    if (info->si_code != SI_TIMER || info->si_value.sival_ptr != (void *)&timer_marker) {
        signal_chain_forward(sig, info, ucontext); /* the program's, not ours */
        return;
    }
    int saved_errno = errno;
    hprof_thread *t = hprof_self;
    hprof_sampling *s = t ? &t->sampling : NULL;
    if (!s || !s->on) {
        errno = saved_errno;
        return;
    }
    if (t->depth > 0) {
        s->in_mpi++; /* its time is measured MPI time, and stays in the next interval */
        errno = saved_errno;
        return;
    }
    /* The handler's own cost, on the wall clock (a TSC read): a CPU-clock
     * read is a system call that would cost more than the walk. A sample
     * preempted inside the handler counts long; the median ignores it. */
    uint64_t entry = hprof_now_ns();
    int failed, inside;
    uint32_t node = sample_node(t, ucontext, &failed, &inside);
    /* between two polls of a polling loop: the polls so far are MPI time
     * of this interval (poll_run.h) */
    if (!inside && poll_run_open_now(t))
        poll_run_sampled(t);
    if (inside) {
        s->in_mpi++;
        errno = saved_errno;
        return;
    }
    if (node == CCT_NONE) {
        s->full++; /* no room: the sample counts under (call tree full) */
        node = t->tree.full_node;
    }
    uint64_t weight = take_interval(s, sampler_clock_ns());
    cct_node *n = &t->tree.nodes[node];
    n->counter[CCT_COMP_TIME_NS] += weight;
    n->counter[CCT_SAMPLES]++;
    timeline_add_span(&t->timeline, TL_COMP_NS, entry, weight);
    path_log_add(&t->paths, t->timeline.shift, PL_COMP, node, entry, weight);
    if (hprof_papi_nevents)
        hprof_papi_sample(&t->papi, &t->tree, node); /* the events' effective interval */
    if (failed) {
        n->counter[CCT_UNWIND_FAILURES]++;
        s->failed++;
    }
    s->counted++;
    s->last_node = node;
    histogram_add(s, weight);
    record_handler_time(s, hprof_now_ns() - entry);
    errno = saved_errno;
}

/* Does the program time itself with SIGPROF (a handler, or ITIMER_PROF as
 * gprof's -pg does)? Then we sample on a real-time signal instead. */
static int program_uses_sigprof(void)
{
    struct sigaction sa;
    struct itimerval it;
    if (real_sigaction(SIGPROF, NULL, &sa) == 0 && sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN)
        return 1;
    return getitimer(ITIMER_PROF, &it) == 0 && (it.it_value.tv_sec || it.it_value.tv_usec);
}

int sampler_process_start(void)
{
    if (hprof_config.sampling_hz <= 0)
        return -1;
    if (installed)
        return 0;
    if (program_uses_sigprof()) {
        sample_signal = SIGRTMIN + 3;
        hprof_say("the program uses SIGPROF; sampling on signal %d instead", sample_signal);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sample;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (real_sigaction(sample_signal, &sa, &previous) != 0) {
        hprof_say("cannot install the sampling handler (%s); sampling is off", strerror(errno));
        return -1;
    }
    signal_chain_take(sample_signal, &previous);
    signal_route_start(); /* our timers leave signals pending: route the program's */
    unwind_process_start();
    installed = 1;
    return 0;
}

void sampler_thread_start(hprof_thread *t, uint64_t window_start_ns)
{
    hprof_papi_thread_start(&t->papi);
    hprof_sampling *s = &t->sampling;
    if (hprof_config.sampling_clock == HPROF_CLOCK_CPU && installed && !clock_read_cost_ns)
        calibrate_read_cost(); /* once, before the window's first reading; racing threads write alike */
    s->window_start_ns = window_start_ns;
    s->last_ns = hprof_config.sampling_clock == HPROF_CLOCK_WALL ? window_start_ns : sampler_clock_ns();
    s->last_node = CCT_NONE;
    if (hprof_config.sampling_clock == HPROF_CLOCK_CPU)
        s->mpi_ns_since = 0;
    if (!installed)
        return;
    unwind_thread_init();
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = sample_signal;
    ev.sigev_value.sival_ptr = (void *)&timer_marker;
    ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    clockid_t clock = hprof_config.sampling_clock == HPROF_CLOCK_WALL ? CLOCK_MONOTONIC
                                                                       : CLOCK_THREAD_CPUTIME_ID;
    if (timer_create(clock, &ev, &s->timer) != 0) {
        hprof_say("cannot create a sampling timer (%s); this thread is not sampled", strerror(errno));
        return;
    }
    long period = 1000000000L / hprof_config.sampling_hz;
    struct itimerspec its = { { period / 1000000000L, period % 1000000000L },
                              { period / 1000000000L, period % 1000000000L } };
    s->has_timer = 1;
    s->on = 1;
    timer_settime(s->timer, 0, &its, NULL);
}

void sampler_thread_stop(hprof_thread *t, uint64_t now_ns, uint32_t node)
{
    hprof_sampling *s = &t->sampling;
    s->on = 0;
    if (s->ended)
        return;
    s->ended = 1;
    s->window_end_ns = hprof_config.sampling_clock == HPROF_CLOCK_WALL ? now_ns : hprof_now_ns();
    if (s->has_timer) {
        timer_delete(s->timer);
        s->has_timer = 0;
    }
    if (!installed)
        return; /* sampling off: no computation time is attributed at all */
    if (node == CCT_NONE)
        node = s->last_node;
    if (node == CCT_NONE)
        node = cct_child(&t->tree, CCT_ROOT, CCT_KEY_UNWIND_FAILED);
    uint64_t weight = take_interval(s, now_ns);
    if (node != CCT_NONE) {
        t->tree.nodes[node].counter[CCT_COMP_TIME_NS] += weight;
        timeline_add_span(&t->timeline, TL_COMP_NS, s->window_end_ns, weight);
        path_log_add(&t->paths, t->timeline.shift, PL_COMP, node, s->window_end_ns, weight);
    }
    /* Another thread's event set cannot be read from here: its counts
     * since its last counted sample or MPI call are left out. */
    if (hprof_papi_nevents && t == hprof_self)
        hprof_papi_thread_stop(&t->papi, node != CCT_NONE ? t->tree.nodes[node].event : NULL);
}
