/*
 * sampler.c - per-thread sampling timers and the signal handler.
 *
 * The handler allocates nothing, takes no lock and calls only
 * async-signal-safe functions (clock_gettime, the unwinder after its
 * per-thread set-up, and the preallocated calling context tree, which never
 * grows inside a lookup). It records only while the thread is outside every
 * MPI wrapper: all tree updates from the wrappers happen inside a wrapper
 * (depth > 0), so the handler never interrupts one; it only finds the node
 * of a call under way, outside the wrapper's bookkeeping (measure.h).
 */
#define _GNU_SOURCE
#include "lib/sampling/sampler.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "core/cct.h"
#include "core/clock.h"
#include "core/config.h"
#include "core/log.h"
#include "core/own_code.h"
#include "core/signal_context.h"
#include "lib/signals/signal_chain.h"
#include "lib/signals/signal_route.h"
#include "lib/active.h"
#include "lib/sampling/papi_events.h"
#include "lib/polls/poll_run.h"
#include "lib/threads/thread.h"
#include "unwind/unwind.h"
#include "core/real_dl.h"

static int sample_signal = SIGPROF; /* new timers' signal; moves once at most */
static struct sigaction previous;
static int installed;
static const int timer_marker; /* its address tells our timer's signals from others */

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

/* The node of an interrupted context, or the (unwind failed) node;
 * CCT_NONE with *inside set when a frame is hprof's own code (a wrapper
 * before or after its bookkeeping, the runtime): that sample is in MPI. */
static uint32_t sample_node(hprof_thread *t, void *ucontext, int *failed, int *inside)
{
    /* The leaf key is the interrupted pc + 1 so that, like the return
     * addresses, key - 1 lies inside its function (unwind.h). */
    return unwind_signal_node(&t->tree, ucontext, failed, inside);
}

/* The timer's period from now on (timer_settime: async-signal-safe). */
static void set_period(hprof_sampling *s, uint64_t ns)
{
    struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
    struct itimerspec its = { ts, ts };
    timer_settime(s->timer, 0, &its, NULL);
}

static void (*locate_in_flight)(hprof_thread *t);

void sampler_set_in_mpi_hook(void (*locate)(struct hprof_thread *t))
{
    locate_in_flight = locate;
}

static void take_sample(siginfo_t *info, void *ucontext)
{
    int saved_errno = errno;
    hprof_thread *t = hprof_self;
    hprof_sampling *s = t ? &t->sampling : NULL;
    if (!s || !s->on) {
        errno = saved_errno;
        return;
    }
    /* The handler's own cost, on the wall clock (a TSC read): a CPU-clock
     * read is a system call that would cost more than the walk. A sample
     * preempted inside the handler counts long; the median ignores it. */
    uint64_t entry = hprof_now_ns();
    uint64_t period = sample_pace_next(&s->pace); /* sample_pace.h: no aliasing with the program's loops */
    if (period)
        set_period(s, period);
    if (t->depth > 0) {
        s->in_mpi++; /* its time is measured MPI time, and stays in the next interval */
        if (locate_in_flight && t->in_flight && t->in_flight_node == CCT_NONE && t->depth == 1)
            locate_in_flight(t);
        errno = saved_errno;
        return;
    }
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
    uint64_t weight = window_take_interval(&s->window, window_clock_ns());
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
    uint64_t end = hprof_now_ns();
    record_handler_time(s, end - entry);
    sample_pace_after(&s->pace, end - entry, end); /* a new period reaches the timer at the next sample */
    errno = saved_errno;
}

static void move_timer(hprof_sampling *s);

static void on_sample(int sig, siginfo_t *info, void *ucontext)
{
    if (info->si_code != SI_TIMER || info->si_value.sival_ptr != (void *)&timer_marker) {
        signal_chain_forward(sig, info, ucontext); /* the program's, not ours */
        return;
    }
    hprof_thread *t = hprof_self;
    if (t && t->sampling.signal != __atomic_load_n(&sample_signal, __ATOMIC_ACQUIRE))
        move_timer(&t->sampling);
    take_sample(info, ucontext);
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

static int thread_blocks(int sig)
{
    sigset_t mask;
    return pthread_sigmask(SIG_BLOCK, NULL, &mask) == 0 && sigismember(&mask, sig) == 1;
}

/* A thread that blocks the sampling signal is never sampled: its time
 * outside MPI goes, unnamed, to its last interval. Said once a process. */
static int said_not_sampled;

static void say_not_sampled(int index)
{
    if (__atomic_exchange_n(&said_not_sampled, 1, __ATOMIC_RELAXED))
        return;
    if (sample_signal == SIGPROF)
        hprof_say("thread %d blocks SIGPROF and signal %d: it is not sampled (its computation is not "
                  "attributed to its functions; its MPI calls are measured)",
                  index, SIGRTMIN + 3);
    else
        hprof_say("thread %d blocks signal %d, hprof's sampling signal: it is not sampled (its computation "
                  "is not attributed to its functions; its MPI calls are measured)",
                  index, sample_signal);
}

/* A timer on the wall clock that sent no sample in 20 periods (samples in
 * MPI count): the thread blocked the signal after its start
 * (pthread_sigmask). The window may begin earlier (at MPI_Init's entry). */
static void check_samples_came(const hprof_thread *t)
{
    const hprof_sampling *s = &t->sampling;
    uint64_t period = 1000000000ull / (uint64_t)hprof_config.sampling_hz;
    if (hprof_config.sampling_clock != HPROF_CLOCK_WALL || s->counted + s->in_mpi + s->busy > 0 ||
        s->window.end_ns < s->armed_ns + 20 * period ||
        __atomic_exchange_n(&said_not_sampled, 1, __ATOMIC_RELAXED))
        return;
    hprof_say("thread %d: no sample arrived in %.2f s (it blocked signal %d, hprof's sampling signal?): "
              "its computation is not attributed to its functions",
              t->index, (double)(s->window.end_ns - s->armed_ns) * 1e-9, sample_signal);
}

/* The sampling signal: SIGPROF, unless the program uses it or the thread
 * that starts the measurement blocks it, and the real-time one is free. */
static void choose_signal(void)
{
    int alternative = SIGRTMIN + 3;
    if (program_uses_sigprof()) {
        sample_signal = hprof_loader_quiet_signal = alternative;
        hprof_say("the program uses SIGPROF; sampling on signal %d instead", sample_signal);
    } else if (thread_blocks(SIGPROF) && !thread_blocks(alternative)) {
        sample_signal = hprof_loader_quiet_signal = alternative;
        hprof_say("the program blocks SIGPROF; sampling on signal %d instead", sample_signal);
    }
}

/* A timer that sends the sampling signal to thread tid at the rate, into
 * s->timer; async-signal-safe (SIGEV_THREAD_ID: system calls only). */
static int arm_timer(hprof_sampling *s, pid_t tid)
{
    int sig = __atomic_load_n(&sample_signal, __ATOMIC_ACQUIRE);
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = sig;
    ev.sigev_value.sival_ptr = (void *)&timer_marker;
    ev._sigev_un._tid = tid;
    clockid_t clock =
        hprof_config.sampling_clock == HPROF_CLOCK_WALL ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID;
    timer_t timer;
    if (timer_create(clock, &ev, &timer) != 0)
        return -1;
    s->timer = timer;
    s->signal = sig;
    set_period(s, s->pace.period_ns); /* a moved timer keeps the pace in force */
    return 0;
}

/* This thread's timer onto the signal hprof samples on now; in its own
 * handler, or with that timer's signal blocked. A window that closed
 * meanwhile (MPI_Finalize on another thread) gets no new timer. */
static void move_timer(hprof_sampling *s)
{
    if (!s->has_timer || !s->on)
        return;
    timer_t old = s->timer;
    if (arm_timer(s, (pid_t)syscall(SYS_gettid)) != 0)
        return; /* the old one goes on */
    timer_delete(old);
    if (!s->on)
        timer_delete(s->timer);
}

/* The program installs a handler of its own for the signal hprof samples
 * on (a Python profiler does after mpi4py's import ran MPI_Init): hprof
 * moves to the real-time signal, as where the program had one before
 * MPI_Init. Sharing SIGPROF, a tick of the program's ITIMER_PROF due with
 * one of hprof's went to another thread (the main thread blocked SIGPROF in
 * hprof's handler, and the kernel hands a pending process-directed signal
 * on as a thread blocks it), and CPython, whose Python handlers run only
 * for a signal the main thread took, lost it: half of a Python profiler's
 * 5 ms ticks at hprof's 100 Hz (issue 30). This thread's timer moves now;
 * the others' at their next sample. */
static void move_off(int sig)
{
    int alternative = SIGRTMIN + 3;
    struct sigaction cur, sa;
    if (sig != SIGPROF || sample_signal != SIGPROF || real_sigaction(alternative, NULL, &cur) != 0 ||
        cur.sa_handler != SIG_DFL || (cur.sa_flags & SA_SIGINFO))
        return; /* moved already, or the program has the other one too: share SIGPROF */
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sample;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (real_sigaction(alternative, &sa, &cur) != 0)
        return;
    signal_chain_take(alternative, &cur);
    __atomic_store_n(&sample_signal, alternative, __ATOMIC_RELEASE);
    __atomic_store_n(&hprof_loader_quiet_signal, alternative, __ATOMIC_RELEASE);
    hprof_verbose(1, "the program installed a SIGPROF handler; sampling moves to signal %d", alternative);
    hprof_thread *t = hprof_self;
    if (!t)
        return;
    sigset_t prof, before;
    sigemptyset(&prof);
    sigaddset(&prof, SIGPROF);
    pthread_sigmask(SIG_BLOCK, &prof, &before);
    if (t->sampling.signal == SIGPROF)
        move_timer(&t->sampling);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
}

int sampler_process_start(void)
{
    if (hprof_config.sampling_hz <= 0)
        return -1;
    if (installed)
        return 0;
    choose_signal();
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
    signal_chain_on_program_handler(move_off);
    signal_route_start(); /* our timers leave signals pending: route the program's */
    unwind_process_start();
    installed = 1;
    return 0;
}

void sampler_thread_start(hprof_thread *t, uint64_t window_start_ns)
{
    hprof_papi_thread_start(&t->papi);
    hprof_sampling *s = &t->sampling;
    if (hprof_config.sampling_clock == HPROF_CLOCK_CPU && installed)
        window_calibrate_read_cost(); /* once, before the window's first reading */
    window_open(&s->window, window_start_ns);
    s->last_node = CCT_NONE;
    /* every measured thread's unwinding state, sampled or not: an exact
     * entry that finds none may be in a signal handler and cannot make it */
    unwind_thread_init();
    signal_context_thread_begins();
    if (!installed)
        return;
    if (thread_blocks(sample_signal))
        say_not_sampled(t->index);
    s->on = 1;
    s->armed_ns = hprof_now_ns();
    sample_pace_start(&s->pace, 1000000000u / (uint64_t)hprof_config.sampling_hz, s->armed_ns,
                      (uint64_t)syscall(SYS_gettid), hprof_config.sampling_clock == HPROF_CLOCK_WALL);
    if (arm_timer(s, (pid_t)syscall(SYS_gettid)) != 0) {
        s->on = 0;
        hprof_say("cannot create a sampling timer (%s); this thread is not sampled", strerror(errno));
        return;
    }
    s->has_timer = 1;
}

void sampler_thread_stop(hprof_thread *t, uint64_t now_ns, uint32_t node)
{
    hprof_sampling *s = &t->sampling;
    s->on = 0;
    if (s->ended)
        return;
    s->ended = 1;
    window_close(&s->window, now_ns);
    if (s->has_timer) {
        timer_delete(s->timer);
        s->has_timer = 0;
        check_samples_came(t);
    }
    if (!installed)
        return; /* sampling off: no computation time is attributed at all */
    if (node == CCT_NONE)
        node = s->last_node;
    if (node == CCT_NONE)
        node = cct_child(&t->tree, CCT_ROOT, CCT_KEY_UNWIND_FAILED);
    uint64_t weight = window_take_interval(&s->window, now_ns);
    if (node != CCT_NONE) {
        t->tree.nodes[node].counter[CCT_COMP_TIME_NS] += weight;
        timeline_add_span(&t->timeline, TL_COMP_NS, s->window.end_ns, weight);
        path_log_add(&t->paths, t->timeline.shift, PL_COMP, node, s->window.end_ns, weight);
    }
    /* Another thread's event set cannot be read from here: its counts
     * since its last counted sample or MPI call are left out. */
    if (hprof_papi_nevents && t == hprof_self)
        hprof_papi_thread_stop(&t->papi, node != CCT_NONE ? t->tree.nodes[node].event : NULL);
}

hprof_thread *sampler_thread_enter(void)
{
    hprof_thread *t = hprof_self;
    if (t)
        return t;
    t = hprof_thread_get();
    if (t && hprof_active)
        sampler_thread_start(t, hprof_now_ns());
    return t;
}

void sampler_thread_close(hprof_thread *t, uint64_t now_ns)
{
    uint32_t node = CCT_NONE;
    if (t->sampling.ended)
        return; /* closed already (ended threads, merged locations) */
    /* start address + 1 maps to the routine like a return address inside it */
    if (t->sampling.last_node == CCT_NONE && t->start_routine && cct_reserve(&t->tree, 1) == 0)
        node = cct_child(&t->tree, CCT_ROOT, t->start_routine + 1);
    sampler_thread_stop(t, now_ns, node);
}
