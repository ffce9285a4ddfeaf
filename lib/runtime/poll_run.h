/*
 * poll_run.h - polling loops without a clock read per poll.
 *
 * A time-stamp read is not cheap where it matters most: rdtsc waits for
 * the loads before it, so in a loop whose own work misses the cache
 * (hpcc's MPIRandomAccess: a random table update between two MPI_Testany)
 * one read a poll costs the whole miss, 140 ns here, where the loop
 * without a tool overlaps its misses at 70 ns an iteration. So a run of
 * polls that complete nothing reads the clock once per group of polls,
 * POLL_RUN_GROUP as the run starts, doubled at each tight group up to
 * POLL_RUN_GROUP_MAX (the read costs a miss's overlap: ~190 ns in
 * `callcost mempolls`, 3 ns a poll in groups of 64):
 *
 *  - a poll that completes nothing, timed on its own (two reads), opens a
 *    run at its frame; the next polls from that frame (any MPI_Test*,
 *    MPI_Iprobe, MPI_Improbe, at any call site) join it while their call
 *    path is known without a walk;
 *  - a poll that joins and completes nothing counts one poll of the run
 *    and nothing else, in the wrapper itself (measure.h: hprof_poll_join,
 *    hprof_poll_again): the run keeps its nodes with their call sites'
 *    return addresses, and an unwind token (unwind.h) says in four loads
 *    that the frame's caller is still the activation those were found
 *    in; the latest node's polls are those since it became the latest.
 *    A group's last poll reads the clock and gives the group's nodes
 *    their visits and the time since the previous read, by their polls
 *    (the loop's instructions between polls count as the waiting they are
 *    part of, as in a single poll chained to the previous one); a grown
 *    group is tight only if its time beyond the loop's pace (twice the
 *    last mean a poll) fits a first group's allowance, so that computation
 *    once between two polls is told at the same size however long the
 *    run;
 *  - a group whose mean time per poll exceeds HPROF_POLL_GAP_NS, in a run
 *    that has read the thread's CPU clock (after every POLL_CPU_EVERY polls
 *    in fast groups: a system call per 4096 polls), is told by that clock: off the
 *    CPU for most of its excess, the tight loop descheduled, and its time
 *    is the loop's, MPI time; else computation once between two polls
 *    (its polls get the run's mean, the rest stays computation, the run
 *    goes on);
 *  - without that clock (a run's first ~5000 polls) such a group is held
 *    until the next group says what it was: the tight loop interrupted
 *    (the thread descheduled, a page fault) when the next group is fast,
 *    and then its time is the loop's; a loop with computation between its
 *    polls when the next is slow too, and then the time of both stays
 *    computation (the sampler's) and the next 1024 polls (doubled at each
 *    such pair in a row) are timed alone;
 *  - a sample outside MPI in the polling loop (the function's own code)
 *    ends the group early: the loop's time, a held group's too, when the
 *    signal came late (its timer expired while the thread was not
 *    running: descheduled); a group as above when it was fast; both
 *    computation when it was slow while the thread ran. A sample in
 *    another function ends the run;
 *  - anything else ends the run: a poll that completes something takes the
 *    time since the last read less the estimate below; a non-poll MPI call
 *    or the thread's end credit the polls since the last read the run's
 *    mean time per poll, at most the time elapsed. A held group is then the
 *    loop interrupted when a group before it in the run was fast, else
 *    computation.
 *
 * Visits and bytes stay exact (a run's visits reach the call tree when it
 * credits: at each group and when it ends); a run's time is measured up to its last
 * read and estimated for at most POLL_RUN_GROUP_MAX - 1 polls after it; the
 * shortest and longest call are left to polls timed alone. The sampler's
 * sum (sampled + MPI time = window) holds as ever: what is credited here is
 * subtracted from the sampler's interval. Called on the thread itself
 * only, in a wrapper (depth > 0) or in its signal handler (depth 0): both
 * never interleave. No allocation, no lock.
 */
#ifndef HPROF_POLL_RUN_H
#define HPROF_POLL_RUN_H

#include <stdint.h>

#include "runtime.h"
#include "thread.h"

#define POLL_RUN_GROUP 64      /* polls per clock read as a run starts, and after a slow group */
#define POLL_RUN_GROUP_MAX 1024 /* ... doubled at each tight group up to this */

/* Opens a run at frame after a poll that completed nothing, timed alone
 * (end_ns its end, dur_ns its time), unless runs are cooling down. */
void poll_run_open(hprof_thread *t, const void *frame, uint64_t end_ns, uint64_t dur_ns);

/* The run's last poll is a group's last: reads the clock, credits the group. */
void poll_run_group(hprof_thread *t);

/* Is a run open? */
static inline int poll_run_open_now(const hprof_thread *t)
{
    return t->poll.frame != NULL;
}

/* A sample outside MPI, at node (inside: in hprof's or the MPI library's
 * code), delivered late_ns after its timer expired, lands in the run. In
 * another function the run ends; in the polling loop the polls since the
 * last read are the loop's time when the sample came late (the thread was
 * descheduled), a group when they were fast, computation when they were
 * slow while the thread ran. The sample counts as ever. */
void poll_run_sampled(hprof_thread *t, uint32_t node, int inside, uint64_t late_ns);

/* Ends the run at now_ns: the polls since the last read get the estimate. */
void poll_run_close(hprof_thread *t, uint64_t now_ns);

/* Ends the run at end_ns, a joined call's end that completed something:
 * the polls since the last read get the estimate; returns the rest of the
 * time since the last read, the call's own. */
uint64_t poll_run_finish(hprof_thread *t, uint64_t end_ns);

/* Does a poll from frame join the thread's run? */
static inline int poll_run_joins(const hprof_thread *t, const void *frame)
{
    return t->poll.frame == frame;
}

/* The run's entry for (fn, site), or -1: a node met in the run. */
static inline int poll_run_find(const hprof_thread *t, int fn, uint32_t site)
{
    const struct hprof_poll_run *r = &t->poll;
    for (uint32_t i = 0; i < r->nnodes; i++)
        if (r->nodes[i].site == site && r->nodes[i].fn == fn)
            return (int)i;
    return -1;
}

/* The run's entry for node (fn at site, called from frame, whose call
 * site unwind_mpi_cached has just found), made if new; -1 when making it
 * ended the run (a fifth node: the group so far is credited first, and it
 * was a slow one). The entry becomes the run's latest. */
int poll_run_enter(hprof_thread *t, uint32_t node, uint32_t site, int fn, const void *frame);

/* Is a poll of fn from the run's frame on the latest entry: its call site,
 * the caller's activation unchanged? */
static inline int poll_run_on_latest(const hprof_thread *t, int fn, const void *frame)
{
    const struct hprof_poll_run *r = &t->poll;
    const struct hprof_poll_node *e = &r->nodes[r->last];
    const uint64_t *f = frame;
    return e->ra == f[1] && !((e->bp ^ f[0]) & e->bp_mask) && e->fn == fn && unwind_token_holds(&r->caller);
}

/* The entry of a poll of fn from the run's frame when it is on the latest
 * one: -1 when only unwind_mpi_cached can tell. */
static inline int poll_run_latest(const hprof_thread *t, int fn, const void *frame)
{
    return poll_run_on_latest(t, fn, frame) ? (int)t->poll.last : -1;
}

/* The run's entry for a poll of fn from frame by its call site
 * (unwind_mpi_cached), made the latest; -1 when its path was not met in
 * the run. */
int poll_run_by_site(hprof_thread *t, int fn, const void *frame);

/* A joined poll that completed nothing, on the run's latest entry: its
 * visit and its time come with its group (credit, poll_run.c), and the
 * latest entry's polls are those since it became the latest (streak_from),
 * so that a poll touches one counter of the run and nothing else. */
static inline void poll_run_add(hprof_thread *t)
{
    struct hprof_poll_run *r = &t->poll;
    if (++r->pending == r->due)
        poll_run_group(t);
}

/* Same for a poll of the wrappers' general path (measure.c), which counted
 * it as a repeat of the previous call or not (HPROF_VERBOSE=1); a poll
 * added on the run's latest entry always is one. */
static inline void poll_run_add_recorded(hprof_thread *t)
{
    t->poll.tallied++;
    poll_run_add(t);
}

/* Same for a poll whose path needed more than the latest entry (made the
 * latest, entry i): a repeat only if the previous call had its site. */
void poll_run_add_tallied(hprof_thread *t, int i, int fn);

/* ---- the wrappers' short path for polls (measure.h) ----------------------- */

/* The thread leaves MPI after a poll joined its run. */
static inline void hprof_poll_leave(struct hprof_thread *t)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    t->depth = 0;
}

/* The thread when a poll from frame joins its run (the thread is then
 * inside MPI for the sampler), else NULL. Inline in the wrappers: in a loop
 * whose own work misses the cache every instruction counts. */
static inline struct hprof_thread *hprof_poll_join(void *frame)
{
    hprof_thread *t = hprof_self;
    if (!t || t->depth)
        return NULL;
    /* inside MPI first: a sample before this may have ended the run */
    t->depth = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (__builtin_expect(poll_run_joins(t, frame) && hprof_active, 1))
        return t;
    hprof_poll_leave(t);
    return NULL;
}

/* After the PMPI call of a joined poll that completed nothing: 1 when it
 * was added to the run (the thread left MPI), 0 when its path was not met
 * in the run (hprof_poll_resume and the wrapper's usual end follow). */
static inline int hprof_poll_again(struct hprof_thread *t, int fn, void *frame)
{
    int i = poll_run_latest(t, fn, frame);
    if (__builtin_expect(i >= 0, 1)) {
        poll_run_add(t);
    } else {
        if ((i = poll_run_by_site(t, fn, frame)) < 0)
            return 0;
        poll_run_add_tallied(t, i, fn);
    }
    hprof_poll_leave(t);
    return 1;
}

/* The lean path (generated for MPI_Test, MPI_Testany of one request,
 * MPI_Iprobe, MPI_Improbe): the thread, inside MPI, when a poll of fn from
 * frame joins its run on the latest entry, told before the PMPI call (the
 * caller's activation cannot change during it), else NULL and the general
 * wrapper follows. Then a poll that completes nothing is
 * hprof_poll_counted; one that completed something or failed goes on with
 * hprof_poll_resume, as a joined poll of the general path. */
static inline struct hprof_thread *hprof_poll_latest(int fn, void *frame)
{
    hprof_thread *t = hprof_poll_join(frame);
    if (__builtin_expect(t && poll_run_on_latest(t, fn, frame), 1))
        return t;
    if (t)
        hprof_poll_leave(t);
    return NULL;
}

/* A poll of the lean path completed nothing: one poll of the run. */
static inline void hprof_poll_counted(struct hprof_thread *t)
{
    poll_run_add(t);
    hprof_poll_leave(t);
}

#endif
