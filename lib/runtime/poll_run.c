/*
 * poll_run.c - polling loops without a clock read per poll (poll_run.h).
 */
#include "poll_run.h"

#include "clock.h"
#include "config.h"
#include "path_log.h"
#include "sampler.h"
#include "timeline.h"
#include "unwind.h"

#define POLL_COOLDOWN 1024 /* polls timed alone after a slow group, doubled per strike */
#define POLL_MAX_STRIKES 10

/* Adds span, the time of the pending polls, to their nodes by their share
 * of the polls, and their visits to the timeline at now_ns; resets them. */
static void credit(hprof_thread *t, uint64_t now_ns, uint64_t span)
{
    struct hprof_poll_run *r = &t->poll;
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
        t->tree.nodes[node].counter[CCT_MPI_TIME_NS] += share;
        t->tree.nodes[node].counter[CCT_POLLS_FAILED_NS] += share; /* the pending polls completed nothing */
        uint32_t bucket = timeline_add_call(&t->timeline, now_ns, share, 0, 0);
        timeline_add_count(&t->timeline, TL_VISITS, now_ns, polls - 1);
        path_log_add_in(&t->paths, t->timeline.shift, bucket, PL_MPI, node, now_ns, share);
    }
    sampler_add_mpi_time(&t->sampling, span);
    r->pending = 0;
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
    r->pending = 0;
    forget_nodes(r);
}

int poll_run_enter(hprof_thread *t, uint32_t node, uint32_t site, int fn, const void *frame)
{
    struct hprof_poll_run *r = &t->poll;
    int i = poll_run_find(t, fn, site);
    if (i < 0) {
        if (r->nnodes == HPROF_POLL_RUN_NODES) {
            if (r->pending)
                poll_run_group(t);
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
    r->last = (uint32_t)i;
    unwind_token_take(&r->caller);
    return i;
}

int poll_run_by_site(hprof_thread *t, int fn, const void *frame)
{
    uint32_t site = unwind_mpi_cached(frame);
    int i = site == CCT_NONE ? -1 : poll_run_find(t, fn, site);
    if (i >= 0)
        i = poll_run_enter(t, t->poll.nodes[i].node, site, fn, frame);
    return i;
}

void poll_run_group(hprof_thread *t)
{
    struct hprof_poll_run *r = &t->poll;
    uint64_t now = hprof_now_ns();
    uint64_t span = now > r->read_ns ? now - r->read_ns : 0;
    if (span > (uint64_t)r->pending * (uint64_t)hprof_config.poll_gap_ns) {
        /* not a tight loop: the group's time stays computation */
        credit(t, now, 0);
        r->frame = NULL;
        r->cooldown = POLL_COOLDOWN << (r->strikes < POLL_MAX_STRIKES ? r->strikes : POLL_MAX_STRIKES);
        r->strikes++;
        return;
    }
    r->strikes = 0;
    r->mean_ns = span / r->pending;
    credit(t, now, span);
}

/* The pending polls' estimate at now_ns: the run's mean, at most the time
 * since the last read. */
static uint64_t tail_estimate(const struct hprof_poll_run *r, uint64_t now_ns)
{
    uint64_t elapsed = now_ns > r->read_ns ? now_ns - r->read_ns : 0;
    uint64_t est = r->mean_ns * r->pending;
    return est < elapsed ? est : elapsed;
}

uint64_t poll_run_finish(hprof_thread *t, uint64_t end_ns)
{
    struct hprof_poll_run *r = &t->poll;
    uint64_t elapsed = end_ns > r->read_ns ? end_ns - r->read_ns : 0;
    uint64_t est = 0;
    if (r->pending) {
        est = tail_estimate(r, end_ns);
        credit(t, end_ns, est);
    }
    r->frame = NULL;
    return elapsed - est;
}

void poll_run_close(hprof_thread *t, uint64_t now_ns)
{
    if (t->poll.frame)
        (void)poll_run_finish(t, now_ns);
}
