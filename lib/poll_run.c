/*
 * poll_run.c - polling loops: every poll counted, one in N timed (poll_run.h).
 */
#include "lib/poll_run.h"

#include <time.h>

#include "core/config.h"
#include "core/path_log.h"
#include "core/timeline.h"
#include "lib/window.h"
#include "unwind/unwind.h"

#define LUMP_TIMES 16        /* a timed poll this many times its mean ... */
#define LUMP_ABOVE_NS 2000   /* ... and this far above it: most likely descheduled in it */
#define BOOKKEEPING_MAX_NS 10000 /* a timed poll's bookkeeping, more: descheduled in it */

/* The clock's own part in a timed poll's span (from one reading's
 * taking to the next's, with nothing between them): the median of
 * back-to-back pairs, once a process; taken out of each timed poll's time. */
static uint64_t clock_part_ns;

static void measure_clock_part(void)
{
    enum { PAIRS = 63 };
    uint64_t d[PAIRS];
    for (int i = 0; i < PAIRS; i++) {
        uint64_t a = hprof_now_ns();
        d[i] = hprof_now_ns() - a;
    }
    for (int i = 1; i < PAIRS; i++) /* insertion sort: 63 values */
        for (int j = i; j > 0 && d[j] < d[j - 1]; j--) {
            uint64_t x = d[j];
            d[j] = d[j - 1];
            d[j - 1] = x;
        }
    clock_part_ns = d[PAIRS / 2] ? d[PAIRS / 2] : 1;
}

uint64_t poll_run_clock_part_ns(void)
{
    return clock_part_ns;
}

/* The time since the run's last credit. */
static uint64_t since_read(const struct hprof_poll_run *r, uint64_t now_ns)
{
    return now_ns > r->read_ns ? now_ns - r->read_ns : 0;
}

/* The run's mean timed poll, or the thread's last run's, or the opening
 * poll's time (hprof's walk in it) when no poll was timed yet. */
static uint64_t run_mean(const struct hprof_poll_run *r)
{
    uint64_t ns = 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->nnodes && r->timed; i++) {
        ns += r->nodes[i].timed_ns;
        n += r->nodes[i].timed;
    }
    if (n)
        return ns / n;
    return r->prior_mean_ns ? r->prior_mean_ns : r->first_ns;
}

/* Entry i's mean timed poll (-1: the run's). */
static uint64_t node_mean(const struct hprof_poll_run *r, int i)
{
    if (i >= 0 && r->nodes[i].timed)
        return r->nodes[i].timed_ns / r->nodes[i].timed;
    return run_mean(r);
}

uint64_t poll_run_estimate(const hprof_thread *t, int i, uint64_t now_ns)
{
    uint64_t mean = node_mean(&t->poll, i), elapsed = since_read(&t->poll, now_ns);
    return mean < elapsed ? mean : elapsed;
}

/* The latest entry's polls since it became the latest are its own. */
static void end_streak(struct hprof_poll_run *r)
{
    r->nodes[r->last].polls += r->pending - r->streak_from;
    r->streak_from = r->pending;
}

/* Adds ns of MPI time and polls visits to entry i's node at now_ns
 * (HPROF_POLLS=split: polls that completed nothing), its timeline and the
 * sampler's interval. */
static void add_to_node(hprof_thread *t, int i, uint64_t now_ns, uint64_t ns, uint32_t polls)
{
    struct hprof_poll_run *r = &t->poll;
    uint32_t node = r->nodes[i].node;
    uint64_t *c = t->tree.nodes[node].counter;
    c[CCT_VISITS] += polls;
    c[CCT_POLLS_FAILED] += polls;
    c[CCT_MPI_TIME_NS] += ns;
    c[CCT_POLLS_FAILED_NS] += ns;
    if (polls) {
        uint32_t bucket = timeline_add_call(&t->timeline, now_ns, ns, 0, 0);
        if (polls > 1)
            timeline_add_count(&t->timeline, TL_VISITS, now_ns, polls - 1);
        path_log_add_in(&t->paths, t->timeline.shift, bucket, PL_MPI, node, now_ns, ns);
    } else {
        timeline_add_span(&t->timeline, TL_MPI_NS, now_ns, ns);
        path_log_add(&t->paths, t->timeline.shift, PL_MPI, node, now_ns, ns);
    }
    r->nodes[i].cpu_credited_ns += ns;
    r->cpu_credited_ns += ns;
    window_add_mpi_time(&t->sampling.window, ns);
}

/* Credits the polls since the last credit up to now_ns: each node its
 * visits, its timed polls' time and its other polls at its mean, all of
 * it at most the time elapsed less reserve_ns (a call of the run that ends
 * it, whose time is its own); resets them. */
static void credit(hprof_thread *t, uint64_t now_ns, uint64_t reserve_ns)
{
    struct hprof_poll_run *r = &t->poll;
    end_streak(r);
    uint64_t untimed[HPROF_POLL_RUN_NODES], sum = 0;
    for (uint32_t i = 0; i < r->nnodes; i++) {
        const struct hprof_poll_node *e = &r->nodes[i];
        uint32_t n = e->polls > e->seg_timed ? e->polls - e->seg_timed : 0;
        untimed[i] = (uint64_t)n * node_mean(r, (int)i);
        sum += e->seg_ns + untimed[i];
    }
    uint64_t elapsed = since_read(r, now_ns);
    uint64_t room = elapsed > reserve_ns ? elapsed - reserve_ns : 0;
    for (uint32_t i = 0; i < r->nnodes; i++) {
        struct hprof_poll_node *e = &r->nodes[i];
        if (!e->polls)
            continue;
        uint64_t ns = e->seg_ns + untimed[i];
        if (sum > room) /* an estimate beyond the span (a mean above this span's polls) is cut to it */
            ns = (uint64_t)((unsigned __int128)ns * room / sum);
        add_to_node(t, (int)i, now_ns, ns, e->polls);
        e->polls = e->seg_timed = 0;
        e->seg_ns = 0;
    }
    t->polls_in_runs += r->pending; /* HPROF_VERBOSE=1 */
    t->polls_repeated += r->pending - r->tallied;
    r->due = r->due > r->pending ? r->due - r->pending : 0;
    r->pending = r->tallied = r->streak_from = 0;
    r->read_ns = now_ns;
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Adds ns to the run's nodes at now_ns, by the MPI time credited to them
 * since the CPU clock's last read (of credited in all). */
static void add_by_credit(hprof_thread *t, uint64_t now_ns, uint64_t ns, uint64_t credited)
{
    struct hprof_poll_run *r = &t->poll;
    uint64_t left = ns;
    for (uint32_t i = 0; i < r->nnodes && left; i++) {
        uint64_t part = (uint64_t)((unsigned __int128)ns * r->nodes[i].cpu_credited_ns / credited);
        if (part > left || i == r->nnodes - 1)
            part = left;
        left -= part;
        if (part)
            add_to_node(t, (int)i, now_ns, part, 0);
    }
}

/* Reads the thread's CPU clock at now_ns, just after a credit. The time
 * the thread was off the CPU since the previous read landed in the
 * loop's polls or between them as its time on the CPU did: the polls get
 * that share of it, those timed as the others (a timed poll far above its
 * mean was credited its mean, the rest held as lump_ns). What of the held
 * time the thread did not spend off the CPU was the polls' own work: it is
 * theirs as it was timed. */
static void cpu_read(hprof_thread *t, uint64_t now_ns)
{
    struct hprof_poll_run *r = &t->poll;
    uint64_t cpu = thread_cpu_ns();
    t->poll_cpu_reads++;
    uint64_t credited = r->cpu_credited_ns;
    if (r->cpu_at_ns && credited) {
        uint64_t wall = now_ns > r->cpu_at_ns ? now_ns - r->cpu_at_ns : 0, ran = cpu - r->cpu_ns;
        uint64_t off = wall > ran ? wall - ran : 0, on = wall - off;
        uint64_t worked = r->cpu_lump_ns > off ? r->cpu_lump_ns - off : 0;
        /* the polls' part of the time on the CPU over the run's reads so
         * far: one read's span may hold little of it */
        r->on_credited_ns += credited;
        r->on_ns += on;
        uint64_t share = off == 0 || r->on_ns == 0 ? 0
                         : r->on_credited_ns >= r->on_ns
                             ? off
                             : (uint64_t)((unsigned __int128)off * r->on_credited_ns / r->on_ns);
        uint64_t room = wall > credited ? wall - credited : 0, interval = window_room_ns(&t->sampling.window, now_ns);
        if (room > interval) /* never beyond the sampler's interval (a read's span may begin before it) */
            room = interval;
        if (worked > room)
            worked = room;
        if (share > room - worked)
            share = room - worked;
        t->polls_off_cpu_ns += share; /* HPROF_VERBOSE=1 */
        add_by_credit(t, now_ns, share + worked, credited);
    }
    for (uint32_t i = 0; i < r->nnodes; i++)
        r->nodes[i].cpu_credited_ns = 0;
    r->cpu_credited_ns = r->cpu_lump_ns = 0;
    r->cpu_ns = cpu;
    r->cpu_at_ns = now_ns;
}

/* Timed polls far above their mean with no read of the CPU clock in the
 * run to tell their time off it: their time as it was timed. */
static void lumps_as_timed(hprof_thread *t, uint64_t now_ns)
{
    struct hprof_poll_run *r = &t->poll;
    if (r->cpu_lump_ns && r->cpu_credited_ns)
        add_by_credit(t, now_ns, r->cpu_lump_ns, r->cpu_credited_ns);
    if (r->cpu_lump_ns)
        r->cpu_lump_ns = 0;
}

/* The CPU clock where poll_run.h says: from POLL_CPU_FIRST_NS into the
 * run, then at a timed poll once POLL_CPU_CREDIT_NS of MPI time were
 * credited since the last read (or POLL_CPU_MAX_NS went by), at a sample
 * once POLL_CPU_SAMPLE_NS was, and at the run's end. A short run reads it
 * never. */
static void maybe_cpu_read(hprof_thread *t, uint64_t now_ns, int at_once)
{
    struct hprof_poll_run *r = &t->poll;
    if (r->cpu_credited_ns < (at_once ? POLL_CPU_SAMPLE_NS : 1))
        return;
    if (!r->cpu_at_ns) {
        if (now_ns - r->open_ns >= POLL_CPU_FIRST_NS) {
            lumps_as_timed(t, now_ns);
            cpu_read(t, now_ns);
        }
    } else if (at_once || r->cpu_credited_ns >= POLL_CPU_CREDIT_NS || now_ns - r->cpu_at_ns >= POLL_CPU_MAX_NS) {
        cpu_read(t, now_ns);
    }
}

/* A stride of 1 to 2n-1 polls (mean n), drawn. */
static uint32_t draw_stride(struct hprof_poll_run *r)
{
    uint32_t x = r->rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    r->rng = x;
    return r->n <= 1 ? 1 : 1 + (uint32_t)(((uint64_t)x * (2 * r->n - 1)) >> 32); /* no division */
}

/* Forgets the run's entries (the latest one matches nothing). */
static void forget_nodes(struct hprof_poll_run *r)
{
    r->nnodes = r->last = 0;
    r->nodes[0].ra = 0;
}

void poll_run_open(hprof_thread *t, const void *frame, uint64_t end_ns, uint64_t dur_ns)
{
    struct hprof_poll_run *r = &t->poll;
    if (!clock_part_ns) /* racing threads measure alike */
        measure_clock_part();
    r->frame = frame;
    r->read_ns = r->open_ns = r->timed_at_ns = end_ns;
    r->first_ns = dur_ns;
    r->pending = r->tallied = r->streak_from = r->timed = 0;
    r->cpu_ns = r->cpu_at_ns = r->cpu_credited_ns = r->cpu_lump_ns = r->on_credited_ns = r->on_ns = 0;
    if (!r->rng)
        r->rng = 0x9e3779b9u ^ (uint32_t)(uintptr_t)t;
    r->n = POLL_N_FIRST;
    r->stride = draw_stride(r);
    r->due = r->stride - 1;
    forget_nodes(r);
}

/* Ends the run at now_ns, reserve_ns of the span since its last credit
 * being the ending call's own. */
static void end_run(hprof_thread *t, uint64_t now_ns, uint64_t reserve_ns)
{
    struct hprof_poll_run *r = &t->poll;
    if (r->pending)
        credit(t, now_ns, reserve_ns);
    if (r->cpu_at_ns && r->cpu_credited_ns)
        cpu_read(t, now_ns);
    else
        lumps_as_timed(t, now_ns);
    if (r->timed)
        r->prior_mean_ns = run_mean(r);
    r->frame = NULL;
}

void poll_run_close(hprof_thread *t, uint64_t now_ns)
{
    if (t->poll.frame)
        end_run(t, now_ns, 0);
}

void poll_run_finish(hprof_thread *t, uint64_t end_ns, uint64_t own_ns)
{
    if (t->poll.frame)
        end_run(t, end_ns, own_ns);
}

int poll_run_enter(hprof_thread *t, uint32_t node, uint32_t site, int fn, const void *frame)
{
    struct hprof_poll_run *r = &t->poll;
    int i = poll_run_find(t, fn, site);
    if (i < 0) {
        if (r->nnodes == HPROF_POLL_RUN_NODES) {
            /* a fifth call site: what the run holds is credited, and it
             * goes on with this one alone */
            uint64_t now = hprof_now_ns();
            if (r->pending)
                credit(t, now, 0);
            if (r->cpu_at_ns && r->cpu_credited_ns)
                cpu_read(t, now);
            else
                lumps_as_timed(t, now);
            forget_nodes(r);
        }
        i = (int)r->nnodes++;
        r->nodes[i] = (struct hprof_poll_node){ .node = node, .site = site, .fn = fn };
    }
    const uint64_t *f = frame;
    r->nodes[i].ra = f[1];
    r->nodes[i].bp = f[0];
    r->nodes[i].bp_mask = unwind_site_needs_bp(frame) ? ~(uint64_t)0 : 0;
    end_streak(r);
    r->last = (uint32_t)i;
    unwind_token_take(&r->caller);
    return i;
}

void poll_run_timed(hprof_thread *t, int i, uint64_t start_ns, uint64_t end_ns)
{
    struct hprof_poll_run *r = &t->poll;
    struct hprof_poll_node *e = &r->nodes[i];
    uint64_t d = end_ns > start_ns + clock_part_ns ? end_ns - start_ns - clock_part_ns : 0, mean = node_mean(r, i);
    r->pending++;
    e->seg_timed++;
    uint64_t *c = t->tree.nodes[e->node].counter;
    if (d < c[CCT_MIN_NS])
        c[CCT_MIN_NS] = d;
    if (d > c[CCT_MAX_NS])
        c[CCT_MAX_NS] = d;
    if ((e->timed || r->prior_mean_ns) && d > LUMP_TIMES * mean && d > mean + LUMP_ABOVE_NS) {
        /* descheduled in it, most likely: its mean now, the rest held */
        e->seg_ns += mean;
        r->cpu_lump_ns += d - mean;
    } else {
        e->seg_ns += d;
        e->timed_ns += d;
        e->timed++;
        r->timed++;
    }
    t->polls_timed++;
    credit(t, end_ns, 0);
    /* the loop's pace since the last timed poll sets the mean stride */
    uint64_t per = (end_ns - r->timed_at_ns) / (r->stride ? r->stride : 1);
    uint64_t target = (uint64_t)hprof_config.poll_stride_us * 1000;
    uint64_t n = per ? target / per : POLL_N_MAX;
    r->n = n < 1 ? 1 : n > POLL_N_MAX ? POLL_N_MAX : (uint32_t)n;
    r->stride = draw_stride(r);
    r->due = r->stride - 1;
    r->timed_at_ns = end_ns;
    maybe_cpu_read(t, end_ns, 0);
    /* this bookkeeping is the timed poll's: its time comes with the next
     * credit; beyond BOOKKEEPING_MAX_NS (a read of the CPU clock is a
     * system call, where the thread is often descheduled) it is held as a
     * lump's */
    uint64_t spent = hprof_now_ns() - end_ns;
    if (spent > BOOKKEEPING_MAX_NS) {
        r->cpu_lump_ns += spent - BOOKKEEPING_MAX_NS;
        spent = BOOKKEEPING_MAX_NS;
    }
    r->nodes[r->last].seg_ns += spent;
}

void poll_run_add_tallied(hprof_thread *t, int i, int fn, uint64_t start_ns, uint64_t end_ns)
{
    uint32_t site = t->poll.nodes[i].site;
    t->polls_repeated += (uint64_t)(site == t->last_site && fn == t->last_fn);
    t->last_site = site;
    t->last_fn = fn;
    t->poll.tallied++;
    if (start_ns)
        poll_run_timed(t, i, start_ns, end_ns);
    else
        poll_run_add(t);
}

int poll_run_by_site(hprof_thread *t, int fn, const void *frame)
{
    uint32_t site = unwind_mpi_cached(frame);
    int i = site == CCT_NONE ? -1 : poll_run_find(t, fn, site);
    if (i >= 0)
        i = poll_run_enter(t, t->poll.nodes[i].node, site, fn, frame);
    return i;
}

void poll_run_sampled(hprof_thread *t)
{
    struct hprof_poll_run *r = &t->poll;
    if (!r->frame)
        return;
    uint64_t now = hprof_now_ns();
    if (r->pending)
        credit(t, now, 0);
    else
        r->read_ns = now; /* no poll since: the next credit's span begins here */
    maybe_cpu_read(t, now, 1);
}
