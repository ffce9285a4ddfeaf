/*
 * poll_run.c - polling loops without a clock read per poll (poll_run.h).
 */
#include "poll_run.h"

#include <time.h>

#include "clock.h"
#include "config.h"
#include "path_log.h"
#include "sampler.h"
#include "timeline.h"
#include "unwind.h"

#define POLL_COOLDOWN 1024 /* polls timed alone after two slow groups, doubled per such pair in a row */
#define POLL_MAX_STRIKES 10
#define POLL_LATE_NS 200000 /* a sample this late: the thread was not running */
#define POLL_CPU_EVERY 4096 /* polls of fast groups between reads of the thread's CPU clock */

/* The time since the run's last clock read. */
static uint64_t since_read(const struct hprof_poll_run *r, uint64_t now_ns)
{
    return now_ns > r->read_ns ? now_ns - r->read_ns : 0;
}

/* Was span for polls a tight loop's (HPROF_POLL_GAP_NS a poll at most)? */
static int is_tight(uint64_t span, uint32_t polls)
{
    return span <= (uint64_t)polls * (uint64_t)hprof_config.poll_gap_ns;
}

/* Same for a group: one grown past POLL_RUN_GROUP polls is tight only if
 * its time beyond the loop's pace (twice the last mean a poll) fits the
 * allowance of a first group, so that computation once between two polls
 * is caught at the same size in a long run as in a new one. */
static int is_tight_group(const struct hprof_poll_run *r, uint64_t span, uint32_t polls)
{
    if (!is_tight(span, polls))
        return 0;
    if (polls <= POLL_RUN_GROUP)
        return 1;
    uint64_t pace = (uint64_t)(polls - POLL_RUN_GROUP) * 2 * r->mean_ns;
    return span <= pace + (uint64_t)POLL_RUN_GROUP * (uint64_t)hprof_config.poll_gap_ns;
}

/* The latest entry's polls since it became the latest are its own. */
static void end_streak(struct hprof_poll_run *r)
{
    r->nodes[r->last].polls += r->pending - r->streak_from;
    r->streak_from = r->pending;
}

/* Adds span, the time of the pending polls, to their nodes by their share
 * of the polls, and their visits to the timeline at now_ns; resets them. */
static void credit(hprof_thread *t, uint64_t now_ns, uint64_t span)
{
    struct hprof_poll_run *r = &t->poll;
    end_streak(r);
    uint64_t left = span;
    uint32_t polls_left = r->pending;
    for (uint32_t i = 0; i < r->nnodes && polls_left; i++) {
        uint32_t node = r->nodes[i].node, polls = r->nodes[i].polls;
        if (!polls)
            continue;
        /* the last node takes the remainder, so the shares sum to span */
        uint64_t share = polls == polls_left ? left : (uint64_t)((unsigned __int128)span * polls / r->pending);
        left -= share;
        polls_left -= polls;
        r->nodes[i].polls = 0;
        uint64_t *c = t->tree.nodes[node].counter;
        c[CCT_VISITS] += polls;
        c[CCT_POLLS_FAILED] += polls; /* the pending polls completed nothing */
        c[CCT_MPI_TIME_NS] += share;
        c[CCT_POLLS_FAILED_NS] += share;
        uint32_t bucket = timeline_add_call(&t->timeline, now_ns, share, 0, 0);
        timeline_add_count(&t->timeline, TL_VISITS, now_ns, polls - 1);
        path_log_add_in(&t->paths, t->timeline.shift, bucket, PL_MPI, node, now_ns, share);
    }
    sampler_add_mpi_time(&t->sampling, span);
    t->polls_grouped += r->pending; /* HPROF_VERBOSE=1 */
    t->poll_credits++;
    t->polls_repeated += r->pending - r->tallied;
    r->pending = r->held_polls = r->tallied = r->streak_from = 0;
    r->held_ns = 0;
    r->due = r->group;
    r->read_ns = now_ns;
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
    if (r->cooldown) {
        r->cooldown--;
        return;
    }
    r->frame = frame;
    r->read_ns = end_ns;
    r->mean_ns = dur_ns;
    r->pending = r->held_polls = r->tallied = r->streak_from = r->tight = r->cpu_polls = 0;
    r->held_ns = r->cpu_at_ns = 0;
    r->due = r->group = POLL_RUN_GROUP;
    forget_nodes(r);
}

/* Not a tight loop (two slow groups in a row, or slow while a sample saw
 * the thread run): the pending time stays computation and the next polls
 * are timed alone. */
static void slow_loop(hprof_thread *t, uint64_t now_ns)
{
    struct hprof_poll_run *r = &t->poll;
    credit(t, now_ns, 0);
    r->frame = NULL;
    r->cooldown = POLL_COOLDOWN << (r->strikes < POLL_MAX_STRIKES ? r->strikes : POLL_MAX_STRIKES);
    r->strikes++;
}

int poll_run_enter(hprof_thread *t, uint32_t node, uint32_t site, int fn, const void *frame)
{
    struct hprof_poll_run *r = &t->poll;
    int i = poll_run_find(t, fn, site);
    if (i < 0) {
        if (r->nnodes == HPROF_POLL_RUN_NODES) {
            if (r->pending)
                poll_run_group(t);
            if (r->held_polls)
                slow_loop(t, r->read_ns);
            if (!r->frame)
                return -1;
            forget_nodes(r);
        }
        i = (int)r->nnodes++;
        r->nodes[i] = (struct hprof_poll_node){ node, site, fn, 0, 0, 0, 0 };
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

void poll_run_add_tallied(hprof_thread *t, int i, int fn)
{
    uint32_t site = t->poll.nodes[i].site;
    t->polls_repeated += (uint64_t)(site == t->last_site && fn == t->last_fn);
    t->last_site = site;
    t->last_fn = fn;
    poll_run_add_recorded(t);
}

int poll_run_by_site(hprof_thread *t, int fn, const void *frame)
{
    uint32_t site = unwind_mpi_cached(frame);
    int i = site == CCT_NONE ? -1 : poll_run_find(t, fn, site);
    if (i >= 0)
        i = poll_run_enter(t, t->poll.nodes[i].node, site, fn, frame);
    return i;
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A slow group after a read of the thread's CPU clock in the run: 1 when
 * the thread was not running for most of its excess over a fast group's
 * time (descheduled), 0 when it ran (computation between two polls); the
 * groups since that read were fast, so the difference is this group's. */
static int slow_group_descheduled(struct hprof_poll_run *r, uint64_t now, uint64_t span, uint32_t polls)
{
    uint64_t cpu = thread_cpu_ns();
    uint64_t wall = now - r->cpu_at_ns, ran = cpu - r->cpu_ns;
    uint64_t off_cpu = wall > ran ? wall - ran : 0, fast = (uint64_t)polls * r->mean_ns;
    r->cpu_ns = cpu;
    r->cpu_at_ns = now;
    return off_cpu >= (span > fast ? span - fast : 0) / 2;
}

void poll_run_group(hprof_thread *t)
{
    struct hprof_poll_run *r = &t->poll;
    uint64_t now = hprof_now_ns();
    uint64_t span = since_read(r, now);
    uint32_t polls = r->pending - r->held_polls;
    if (is_tight_group(r, span, polls)) {
        /* a tight loop, and a group held before it was this loop interrupted */
        r->strikes = 0;
        r->tight++;
        if ((r->cpu_polls += polls) >= POLL_CPU_EVERY) {
            r->cpu_polls = 0;
            r->cpu_ns = thread_cpu_ns();
            r->cpu_at_ns = now;
        }
        if (polls)
            r->mean_ns = span / polls;
        if (r->group < POLL_RUN_GROUP_MAX)
            r->group *= 2;
        credit(t, now, span + r->held_ns);
        return;
    }
    r->group = POLL_RUN_GROUP;
    if (r->cpu_at_ns && !r->held_polls) {
        /* the CPU clock tells: the loop descheduled, or computing once
         * between two polls (the polls get their mean, the rest stays
         * computation, the run goes on) */
        uint64_t fast = (uint64_t)polls * r->mean_ns;
        credit(t, now, slow_group_descheduled(r, now, span, polls) ? span : fast < span ? fast : span);
    } else if (!r->held_polls) {
        r->held_polls = r->pending;
        r->held_ns = span;
        r->read_ns = now;
        r->due = r->pending + POLL_RUN_GROUP;
    } else {
        slow_loop(t, now);
    }
}

/* Is the sample at node in the polling loop: in the run's frame, the
 * polling function itself at the path of its polls (a sibling of their call
 * sites' nodes), or in what a poll's call site calls (the PLT entry on the
 * way to the wrapper)? */
static int in_polling_loop(const hprof_thread *t, uint32_t node)
{
    const struct hprof_poll_run *r = &t->poll;
    if (node == CCT_NONE)
        return 0;
    uint32_t parent = t->tree.nodes[node].parent;
    for (uint32_t i = 0; i < r->nnodes; i++)
        if (t->tree.nodes[r->nodes[i].site].parent == parent || r->nodes[i].site == parent)
            return 1;
    return 0;
}

void poll_run_sampled(hprof_thread *t, uint32_t node, int inside, uint64_t late_ns)
{
    struct hprof_poll_run *r = &t->poll;
    if (!r->frame)
        return;
    uint64_t now = hprof_now_ns();
    if (!inside && !in_polling_loop(t, node)) {
        poll_run_close(t, now); /* computing elsewhere: the loop was left */
        return;
    }
    if (!r->pending)
        return;
    uint64_t span = since_read(r, now);
    uint32_t polls = r->pending - r->held_polls;
    if (late_ns > POLL_LATE_NS) {
        /* descheduled in the loop: the time since the last read is the
         * loop's, and so is a slow group held before it */
        r->strikes = 0;
        credit(t, now, span + r->held_ns);
    } else if (polls && is_tight_group(r, span, polls)) {
        poll_run_group(t);
    } else {
        slow_loop(t, now); /* slow while the thread ran: computation in the loop */
    }
}

/* The estimate of the polls since the last read at now_ns: the run's mean,
 * at most the time since the last read (a held group gets none). */
static uint64_t tail_estimate(const struct hprof_poll_run *r, uint64_t now_ns)
{
    uint64_t elapsed = since_read(r, now_ns);
    uint64_t est = r->mean_ns * (r->pending - r->held_polls);
    return est < elapsed ? est : elapsed;
}

uint64_t poll_run_finish(hprof_thread *t, uint64_t end_ns)
{
    struct hprof_poll_run *r = &t->poll;
    uint64_t elapsed = since_read(r, end_ns);
    uint64_t est = 0;
    if (r->pending) {
        est = tail_estimate(r, end_ns);
        /* a slow group after a tight one was the tight loop interrupted */
        credit(t, end_ns, est + (r->tight ? r->held_ns : 0));
    }
    r->frame = NULL;
    return elapsed - est;
}

void poll_run_close(hprof_thread *t, uint64_t now_ns)
{
    if (t->poll.frame)
        (void)poll_run_finish(t, now_ns);
}
