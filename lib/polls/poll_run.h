/*
 * poll_run.h - polling loops: every poll counted, one in N timed.
 *
 * A poll that completes nothing (MPI_Test*, MPI_Iprobe, MPI_Improbe),
 * timed alone, opens a *run* at its frame; the next polls from that frame
 * on a call path met in the run join it: most are only counted, in the
 * wrapper (hprof_poll_latest, hprof_poll_counted), one in N (random,
 * adapted to a timed poll every HPROF_POLL_STRIDE_US) is timed
 * (hprof_poll_join, hprof_poll_again, hprof_poll_resume). At each timed
 * poll, at a sample outside MPI and when the run ends, the polls since
 * are credited to their nodes: visits exact; MPI time the timed polls'
 * plus the others at their mean, with the time off the CPU split by the
 * thread's CPU clock. Why, and the estimate's error: docs/measurement.md,
 * *Polling loops*.
 *
 * Contract: visits and bytes stay exact; sampled + MPI time = window holds
 * (what a run credits comes out of the sampler's interval, never more than
 * the span it covers). Called on the thread itself only, in a wrapper
 * (depth > 0) or in its signal handler (depth 0), which never interleave.
 * No allocation, no lock.
 */
#ifndef HPROF_POLL_RUN_H
#define HPROF_POLL_RUN_H

#include <stdint.h>

#include "core/clock.h"
#include "lib/active.h"
#include "lib/threads/thread.h"

/* The rules themselves, pure functions of the run and clock readings:
 * lib/polls/poll_rules.h (its constants too). */
#include "lib/polls/poll_rules.h"

/* Opens a run at frame after a poll that completed nothing, timed alone
 * (end_ns its end, dur_ns its time, hprof's walk included). */
void poll_run_open(hprof_thread *t, const void *frame, uint64_t end_ns, uint64_t dur_ns);

/* The clock's own part in a timed poll as first measured, once a process
 * (0 before the first run), from which each thread's tracked part starts
 * (t->poll.clock_part_q8): HPROF_VERBOSE=1. */
uint64_t poll_run_clock_part_ns(void);

/* Is a run open? */
static inline int poll_run_open_now(const hprof_thread *t)
{
    return t->poll.frame != NULL;
}

/* A sample outside MPI, while a run is open (the program between two
 * polls, in the loop or in what it calls): the polls so far are credited
 * up to now, so that the sample's interval is what was not MPI time. */
void poll_run_sampled(hprof_thread *t);

/* Ends the run at now_ns: the polls since the last credit get the estimate. */
void poll_run_close(hprof_thread *t, uint64_t now_ns);

/* Same for a call of the run that ends it at end_ns (a poll that completed
 * something, or whose path changed), own_ns of the span since the last
 * credit being its own. */
void poll_run_finish(hprof_thread *t, uint64_t end_ns, uint64_t own_ns);

/* A poll's time when it was not timed: its node's mean (entry i; -1: the
 * run's), at most the time since the run's last credit. */
uint64_t poll_run_estimate(const hprof_thread *t, int i, uint64_t now_ns);

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
 * ended the run (a fifth node: the run is credited and begins anew with
 * it, unless that is not possible). The entry becomes the run's latest. */
int poll_run_enter(hprof_thread *t, uint32_t node, uint32_t site, int fn, const void *frame);

/* Is a poll of fn from the run's frame on the latest entry: its call site,
 * the caller's activation unchanged? */
static inline int poll_run_on_latest(const hprof_thread *t, int fn, const void *frame)
{
    const struct hprof_poll_run *r = &t->poll;
    const uint64_t *f = frame;
    return r->ra == f[1] && !((r->bp ^ f[0]) & r->bp_mask) && r->fn == fn && unwind_token_holds(&r->caller);
}

/* The run's entry for a poll of fn from frame by its call site
 * (unwind_mpi_cached), made the latest; -1 when its path was not met in
 * the run. */
int poll_run_by_site(hprof_thread *t, int fn, const void *frame);

/* The hint for the thread's next poll (thread.h): the stamp's kind when
 * that poll is the one timed, else 0. */
static inline void poll_run_hint(const hprof_thread *t)
{
    hprof_poll_time_next = t->poll.pending == t->poll.due ? (int)t->poll.stamp_kind : 0;
}

/* A joined poll that completed nothing and was not timed, on the run's
 * latest entry: its visit and its time come with the next credit
 * (poll_run.c), and the latest entry's polls are those since it became
 * the latest (streak_from), so that a poll touches one counter of the run
 * and nothing else. */
static inline void poll_run_add(hprof_thread *t)
{
    t->poll.pending++;
    poll_run_hint(t);
}

/* A timed poll's span ends: its end read, then its ends in nanoseconds
 * (*start from the stamp that hprof_poll_join read), the end returned.
 * One more read right after the end samples the clock's own part in the
 * state the loop is in (poll_rules_clock_part). */
static inline uint64_t poll_run_span_end(hprof_thread *t, uint64_t *start)
{
    int kind = (int)t->poll.stamp_kind;
    uint64_t end = hprof_stamp_read_after(kind);
    uint64_t again = hprof_stamp_read(kind);
    uint64_t end_ns = hprof_stamp_ns(kind, end), pair_ns = hprof_stamp_ns(kind, again) - end_ns;
    t->poll.clock_pair_ns = pair_ns < UINT32_MAX ? (uint32_t)pair_ns : UINT32_MAX;
    *start = hprof_stamp_ns(kind, *start);
    return end_ns;
}

/* A joined poll that completed nothing, timed from start_ns to end_ns, on
 * entry i (the latest): credits the run so far and draws the next timed
 * poll. */
void poll_run_timed(hprof_thread *t, int i, uint64_t start_ns, uint64_t end_ns);

/* Same as poll_run_add for a poll of the wrappers' general path
 * (measure.c), which counted it as a repeat of the previous call or not
 * (HPROF_VERBOSE=1); a poll added on the run's latest entry always is one. */
static inline void poll_run_add_recorded(hprof_thread *t)
{
    t->poll.tallied++;
    poll_run_add(t);
}

/* Same for a poll whose path needed more than the latest entry (made the
 * latest, entry i): a repeat only if the previous call had its site;
 * timed when start_ns is not 0. */
void poll_run_add_tallied(hprof_thread *t, int i, int fn, uint64_t start_ns, uint64_t end_ns);

/* ---- the wrappers' short path for polls (measure.h) ----------------------- */

/* The thread leaves MPI after a poll joined its run. */
static inline void hprof_poll_leave(struct hprof_thread *t)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    t->depth = 0;
}

/* The thread when a poll from frame joins its run (the thread is then
 * inside MPI for the sampler), else NULL; *start: when this poll is the
 * one timed, the stamp of its start (read as early as the wrapper can
 * tell, so that a timed poll spans about what an untimed one costs, and
 * raw: poll_run_span_end converts it), else 0. Inline in the wrappers: in
 * a loop whose own work misses the cache every instruction counts. */
static inline struct hprof_thread *hprof_poll_join(void *frame, uint64_t *start)
{
    /* the hint, then the clock, then the thread's state: where that state
     * is out of the cache (a loop that computes microseconds between its
     * polls), its misses are in the timed span as in the program's */
    int hint = hprof_poll_time_next;
    uint64_t early = __builtin_expect(hint, 0) ? hprof_stamp_read(hint) : 0;
    hprof_thread *t = hprof_self;
    if (!t || t->depth)
        return NULL;
    /* inside MPI first: a sample before this may have credited the run */
    t->depth = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (__builtin_expect(poll_run_joins(t, frame) && hprof_active, 1)) {
        *start = __builtin_expect(t->poll.pending == t->poll.due, 0)
                     ? (early ? early : hprof_stamp_read((int)t->poll.stamp_kind))
                     : 0;
        return t;
    }
    hprof_poll_leave(t);
    return NULL;
}

/* After the PMPI call of a joined poll that completed nothing (start
 * from hprof_poll_join): 1 when it was added to the run (the thread left
 * MPI), 0 when its path was not met in the run (hprof_poll_resume and the
 * wrapper's usual end follow). */
static inline int hprof_poll_again(struct hprof_thread *t, int fn, void *frame, uint64_t start)
{
    uint64_t end_ns = start ? poll_run_span_end(t, &start) : 0;
    if (__builtin_expect(poll_run_on_latest(t, fn, frame), 1)) {
        if (__builtin_expect(!start, 1))
            poll_run_add(t);
        else
            poll_run_timed(t, (int)t->poll.last, start, end_ns);
    } else {
        int i = poll_run_by_site(t, fn, frame);
        if (i < 0)
            return 0;
        poll_run_add_tallied(t, i, fn, start, end_ns);
    }
    hprof_poll_leave(t);
    return 1;
}

/* The lean path (generated for MPI_Test, MPI_Testany of one request,
 * MPI_Iprobe, MPI_Improbe): the thread, inside MPI, when a poll of fn from
 * frame joins its run on the latest entry, told before the PMPI call (the
 * caller's activation cannot change during it), else NULL and the general
 * wrapper follows (*start_ns as hprof_poll_join's). Then the PMPI call,
 * and a poll that completes nothing is hprof_poll_counted; one that completed something
 * or failed goes on with hprof_poll_resume, as a joined poll of the
 * general path. */
static inline struct hprof_thread *hprof_poll_latest(int fn, void *frame, uint64_t *start)
{
    hprof_thread *t = hprof_poll_join(frame, start);
    if (__builtin_expect(t && poll_run_on_latest(t, fn, frame), 1))
        return t;
    if (t)
        hprof_poll_leave(t);
    return NULL;
}

/* A poll of the lean path completed nothing: one poll of the run, timed
 * from the stamp start when that is not 0. */
static inline void hprof_poll_counted(struct hprof_thread *t, uint64_t start)
{
    if (__builtin_expect(!start, 1)) {
        poll_run_add(t);
    } else {
        uint64_t end_ns = poll_run_span_end(t, &start);
        poll_run_timed(t, (int)t->poll.last, start, end_ns);
    }
    hprof_poll_leave(t);
}

#endif
