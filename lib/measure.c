/*
 * measure.c - what every MPI wrapper does around the PMPI call: decide whether
 * the call is measured, time it, find its call path and add it to the
 * thread's calling context tree.
 *
 * The common case is kept short (bench/callcost.c, cost_probe.h): one TLS
 * access per call (begin keeps the thread in the call), the clock read
 * inline, no atomics, begin and end each one straight path that calls
 * nothing (every other case a jump to its own function), and a
 * call whose call site the unwinder still knows
 * (unwind_mpi_cached: same frame, nothing entered or left since) finds its
 * node in the thread's leaf memo, with no walk and no tree lookup: loops of
 * MPI calls cost two clock reads and a few adds. The work after a call's
 * end stamp is the call's too: each call adds its running mean (tail_ns).
 *
 * Polling loops time one poll in N (poll_run.h): a poll that completes
 * nothing from the frame of the thread's polling run costs a count and no
 * clock read.
 */
#include "lib/measure.h"

#include "lib/ending/abandon.h"
#include "core/cct.h"
#include "core/config.h"
#include "lib/sampling/cost_probe.h"
#include "core/fn_table.h"
#include "lib/sampling/papi_events.h"
#include "lib/polls/poll_run.h"
#include "lib/active.h"
#include "lib/sampling/sampler.h"
#include "lib/threads/thread.h"
#include "lib/lifecycle/unmeasured.h"
#include "lib/sampling/window.h"
#include "unwind/mpi_site_cache.h"
#include "unwind/unwind.h"

/* The leaf memo's site for functions that are not unwound (their node is
 * (not unwound)/function): no node has this id. */
#define SITE_NOUNWIND (CCT_NONE - 1)

/* The sampler never interrupts a wrapper's bookkeeping (depth > 0): keep
 * the compiler from moving tree updates across the depth changes. */
#define SIGNAL_FENCE() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* A step of the common case, a call repeated from a known call site: one
 * straight path in hprof_call_end, with no call and no second frame
 * (tests/arch/hot_path.sh), whatever the compiler's size heuristics say. */
#define STRAIGHT static inline __attribute__((always_inline))

/* Records a finished call on thread t: inline in end_apart, the end of
 * every call but the common case (hprof_call_end's straight path books
 * the same); record_call for the rare others (MPI_Abort, the init call, a
 * call booked from a signal). */
STRAIGHT void record(hprof_thread *t, hprof_call *call);
static __attribute__((noinline)) void record_call(hprof_thread *t, hprof_call *call);

/* MPI_Abort itself, a visit on its call path, before the measurement ends
 * (the call never returns). */
static void book_abort(hprof_call *call, hprof_thread *t)
{
    if (!hprof_active || !t || t->depth)
        return;
    for (int i = 0; i < HPROF_NBYTES; i++)
        call->bytes[i] = 0;
    t->depth = 1;
    SIGNAL_FENCE();
    call->start_ns = hprof_now_ns();
    record_call(t, call);
    SIGNAL_FENCE();
    t->depth = 0;
}

/* The measurement's settings let a call take the straight path: the clock
 * is the TSC, calibrated (no call to read it), the sampler's clock the
 * wall clock and no PAPI events (no reading of either around the call).
 * Decided once they are settled (hprof_measure_settle), so that a call
 * tests one word; until then every call takes the general path. */
static int straight_settled;

void hprof_measure_settle(void)
{
    int straight = __atomic_load_n(&hprof_tsc.use_tsc, __ATOMIC_ACQUIRE) &&
                   hprof_config.sampling_clock != HPROF_CLOCK_CPU && !hprof_papi_nevents;
    __atomic_store_n(&straight_settled, straight, __ATOMIC_RELEASE); /* after the clock's state */
}

STRAIGHT int straight_measure(void)
{
    return __atomic_load_n(&straight_settled, __ATOMIC_ACQUIRE);
}

/* The thread is in the call: last, since a sample that sees it may walk
 * and add nodes (sampler.h). */
static inline void publish_call(hprof_thread *t, hprof_call *call)
{
    t->in_flight_node = CCT_NONE;
    SIGNAL_FENCE();
    t->in_flight = call;
}

/* A call while the thread has a polling run open: a poll of the run, or
 * the call that closes it (poll_run.h). Its own function, so that the
 * common begin saves no register. */
static __attribute__((noinline)) void begin_beside_poll_run(hprof_call *call, hprof_thread *t)
{
    if (poll_run_joins(t, call->frame) && (hprof_fn_table[call->fn].flags & HPROF_FN_POLL))
        call->chained = HPROF_POLL_CHAINED_TIMED;
    else
        poll_run_close(t, call->start_ns);
    publish_call(t, call);
}

static __attribute__((noinline)) void begin_rare(hprof_call *call, hprof_thread *t)
{
    if (call->fn == hprof_abort_fn) {
        book_abort(call, t);
        abandon_measurement("MPI_Abort"); /* also from another thread during MPI_Finalize's merge */
    }
    if (!hprof_active) {
        hprof_unmeasured();
        return;
    }
    if (!t && !(t = sampler_thread_enter()))
        return;
    call->thread = t;
    /* MPI calls made from inside a wrapper (MPICH's Fortran layer calls the C
     * MPI_ symbols, MPI-IO calls datatype functions) belong to the outer call. */
    if (t->depth++ > 0) {
        call->nested = 1;
        return;
    }
    SIGNAL_FENCE();
    for (int i = 0; i < HPROF_NBYTES; i++)
        call->bytes[i] = 0;
    call->measured = 1;
    if (hprof_config.sampling_clock == HPROF_CLOCK_CPU)
        call->start_cpu_ns = window_cpu_read(&call->start_cpu_cost_ns);
    call->start_ns = hprof_now_ns();
    if (hprof_papi_nevents)
        hprof_papi_call_begin(&t->papi); /* after the clock: its cost is MPI time */
    if (t->poll.frame)
        begin_beside_poll_run(call, t); /* a clock that is not the TSC */
    else
        publish_call(t, call);
}

/* A call's record as its wrapper starts: measured on thread t (NULL: not
 * yet known), chained: enum hprof_poll_chain. */
static inline void call_start(hprof_call *call, int fn, void *frame, hprof_thread *t, int chained)
{
    call->fn = fn;
    call->where.comm = 0;
    call->frame = frame;
    call->measured = t != NULL;
    call->nested = 0;
    call->poll = 0;
    call->chained = chained;
    call->poll_end_ns = 0;
    call->thread = t;
}

void hprof_call_begin(hprof_call *call, int fn, void *frame)
{
    COST_START();
    hprof_thread *t = hprof_self;
    call_start(call, fn, frame, NULL, HPROF_POLL_ALONE);
    if (__builtin_expect(!hprof_active || !t || t->depth || fn == hprof_abort_fn || !straight_measure(), 0)) {
        begin_rare(call, t);
        return;
    }
    t->depth = 1;
    SIGNAL_FENCE();
    call->thread = t;
    call->measured = 1;
    for (int i = 0; i < HPROF_NBYTES; i++)
        call->bytes[i] = 0;
    COST_MARK(0);
    call->start_ns = hprof_tsc_to_ns(hprof_read_tsc());
    if (__builtin_expect(t->poll.frame != NULL, 0)) {
        begin_beside_poll_run(call, t);
        return;
    }
    publish_call(t, call);
    COST_MARK(1);
}

/* ---- hprof's work after a call's end stamp ------------------------------
 * A call's time runs from its start stamp to its end stamp, read after the
 * walk and the tree lookup; the bookkeeping after it (the node's counters,
 * the time line, the path log: some 20-50 ns) is hprof's cost as much, not
 * the computation of the code around the call, where samples would put it.
 * Each call on the wall clock adds the thread's running mean of that tail;
 * one call in 32-95 (drawn, so that no loop's period aliases with it)
 * measures its own: from the end stamp to a read where the bookkeeping
 * ends, less half of a read right after that one (the clock's own part,
 * as a timed poll's, poll_run.h): the end stamp's own completion is the
 * call's, the measuring read's start is not. What precedes the start stamp
 * (the wrapper's entry, hprof's checks: some 10 ns) stays outside. On the
 * CPU clock the call's reading ends the bookkeeping (book_call). */
#define TAIL_MAX_NS 2000 /* a longer tail had a signal or a switch in it */

/* The tail to add to a call that spanned span ns up to end: the mean, at
 * most what the sampler's interval holds beyond its MPI time so far and
 * this call's, so that sampled + MPI time = window holds where calls
 * follow each other with nothing between them and the mean is more than
 * their tails (tests/mpi/sampling_accuracy.sh's stress run read +0.2%). */
STRAIGHT uint64_t tail_within(const hprof_thread *t, uint64_t end, uint64_t span)
{
    int64_t room = window_room_less(&t->sampling.window, end, span), tail = (int64_t)t->tail_ns;
    return (uint64_t)(room < tail ? (room > 0 ? room : 0) : tail);
}

STRAIGHT uint64_t tail_estimate(const hprof_thread *t, uint64_t end, uint64_t span)
{
    return hprof_config.sampling_clock == HPROF_CLOCK_WALL ? tail_within(t, end, span) : 0;
}

STRAIGHT int tail_due(hprof_thread *t)
{
    return __builtin_expect(t->tail_countdown-- == 0, 0);
}

/* The call that ended at end_ns, its bookkeeping done at stamp done, read
 * again at again (stamps of kind), measures the tail; the next is drawn. */
static __attribute__((noinline)) void tail_measure(hprof_thread *t, uint64_t end_ns, int kind, uint64_t done,
                                                   uint64_t again)
{
    uint64_t done_ns = hprof_stamp_ns(kind, done), part = hprof_stamp_span_ns(kind, done, again) / 2;
    uint64_t tail = done_ns > end_ns + part ? done_ns - end_ns - part : 0;
    if (tail <= TAIL_MAX_NS) /* from 0: a thread's first calls, cold, are no guide to the rest */
        t->tail_ns = (uint32_t)((int64_t)t->tail_ns + ((int64_t)tail - (int64_t)t->tail_ns) / 8);
    t->tail_countdown = 32 + (uint32_t)((done_ns >> 4) & 63);
}

/* exact: ns was measured, not estimated (a poll of a run not timed) */
STRAIGHT void add_call(cct_node *n, const hprof_call *call, uint64_t ns, int exact)
{
    n->counter[CCT_VISITS]++;
    n->counter[CCT_MPI_TIME_NS] += ns;
    if (ns < n->counter[CCT_MIN_NS] && exact)
        n->counter[CCT_MIN_NS] = ns;
    if (ns > n->counter[CCT_MAX_NS] && exact)
        n->counter[CCT_MAX_NS] = ns;
#pragma GCC unroll 8 /* no loop control on every call's path */
    for (int i = 0; i < HPROF_NBYTES; i++)
        n->counter[CCT_BYTES_SENT + i] += call->bytes[i];
    if (call->poll) {
        n->counter[CCT_POLLS_FAILED]++;
        n->counter[CCT_POLLS_FAILED_NS] += ns;
    }
}

/* The node for this call by a walk (or, for functions that are not
 * unwound, under (not unwound)); an artificial root when the unwind fails.
 * *counter: the counter the call also adds to, or -1. */
static uint32_t call_node(cct *tree, int fn, void *frame, int *counter)
{
    *counter = -1;
    if (hprof_fn_nounwind && hprof_fn_nounwind[fn]) {
        *counter = CCT_CALLS_NOT_UNWOUND;
        if (cct_reserve(tree, 2) != 0)
            return CCT_NONE;
        return cct_child(tree, cct_child(tree, CCT_ROOT, CCT_KEY_NOT_UNWOUND), CCT_KEY_MPI_FN(fn));
    }
    /* The caller's node (under (unwind failed) with the frames that were
     * known when the unwind fails); room for the leaf is reserved with it. */
    int failed;
    uint32_t node = unwind_mpi_node(tree, frame, &failed);
    if (failed)
        *counter = CCT_UNWIND_FAILURES;
    if (node == CCT_NONE)
        return CCT_NONE;
    return cct_child(tree, node, CCT_KEY_MPI_FN(fn));
}

/* The call's site without a walk: SITE_NOUNWIND, the site's node, or
 * CCT_NONE when only a walk can tell. Not with PAPI events (their
 * readings go through call_node's path). */
STRAIGHT uint32_t call_site(const hprof_call *call)
{
    if (__builtin_expect(hprof_papi_nevents != 0, 0))
        return CCT_NONE;
    if (hprof_fn_nounwind && hprof_fn_nounwind[call->fn])
        return SITE_NOUNWIND;
    return mpi_site_cached(call->frame);
}

static inline struct hprof_leaf_memo *memo_of(hprof_thread *t, uint32_t site, int fn)
{
    return &t->leaf_memo[(site * 7u + (uint32_t)fn) & (HPROF_LEAF_MEMO - 1)];
}

/* A known site's node for fn, remembered for the next call. */
static __attribute__((noinline)) uint32_t memo_fill(hprof_thread *t, const hprof_call *call, uint32_t site,
                                                    int *counter)
{
    uint32_t leaf;
    if (site == SITE_NOUNWIND)
        leaf = call_node(&t->tree, call->fn, call->frame, counter);
    else
        leaf = cct_reserve(&t->tree, 1) == 0 ? cct_child(&t->tree, site, CCT_KEY_MPI_FN(call->fn)) : CCT_NONE;
    if (leaf == CCT_NONE || leaf == 0)
        return CCT_NONE; /* the tree is full: not remembered */
    struct hprof_leaf_memo *m = memo_of(t, site, call->fn);
    *m = (struct hprof_leaf_memo){ site, leaf, call->fn, *counter };
    return leaf;
}

/* The node by a walk; *site: the caller's node when the walk succeeded
 * (the site unwind_mpi_cached tells the next call from the same frame),
 * remembered with the node, else CCT_NONE. */
static __attribute__((noinline)) uint32_t walked_node(hprof_thread *t, const hprof_call *call, int *counter,
                                                      uint32_t *site)
{
    uint32_t leaf = call_node(&t->tree, call->fn, call->frame, counter);
    *site = CCT_NONE;
    if (leaf == CCT_NONE || leaf == 0 || *counter >= 0 || hprof_papi_nevents)
        return leaf;
    *site = t->tree.nodes[leaf].parent;
    *memo_of(t, *site, call->fn) = (struct hprof_leaf_memo){ *site, leaf, call->fn, -1 };
    return leaf;
}

/* The call's node: the memo of its call site, else a walk; counter: its
 * path log counter or -1; site: the call site found. */
STRAIGHT uint32_t node_of_call(hprof_thread *t, hprof_call *call, int *counter, uint32_t *site)
{
    *site = call_site(call);
    struct hprof_leaf_memo *m = memo_of(t, *site, call->fn);
    if (__builtin_expect(*site != CCT_NONE && m->site == *site && m->fn == call->fn && m->leaf, 1)) {
        *counter = m->counter;
        return m->leaf;
    }
    if (*site != CCT_NONE)
        return memo_fill(t, call, *site, counter);
    return walked_node(t, call, counter, site);
}

/* A poll that completed nothing in the thread's polling run: a visit of
 * the run (poll_run.h), timed or counted; 1 when the run took it. */
static inline int record_in_poll_run(hprof_thread *t, hprof_call *call, uint32_t node, uint32_t site)
{
    int i = poll_run_enter(t, node, site, call->fn, call->frame);
    if (i < 0)
        return 0;
    if (call->chained == HPROF_POLL_CHAINED_TIMED) {
        t->poll.tallied++; /* counted above */
        poll_run_timed(t, i, call->start_ns, call->poll_end_ns ? call->poll_end_ns : hprof_now_ns());
    } else {
        poll_run_add_recorded(t);
    }
    return 1;
}

/* The run ends with this call (a poll that completed something, or whose
 * path changed): a poll not timed gets the run's mean. Its time, *exact 0
 * where it is that estimate. */
static uint64_t end_poll_run(hprof_thread *t, const hprof_call *call, uint64_t end, uint64_t ns, int *exact)
{
    if (call->chained == HPROF_POLL_CHAINED) {
        ns = poll_run_estimate(t, -1, end);
        *exact = 0;
    }
    poll_run_finish(t, end, ns);
    return ns;
}

/* The call's time, visit and bytes on its node, the thread's MPI time,
 * the time line and the path log. */
STRAIGHT void book_call(hprof_thread *t, const hprof_call *call, uint32_t node, int counter, uint64_t end,
                        uint64_t ns, int exact)
{
    /* The sampler subtracts MPI time on its own clock (on the CPU clock at
     * the end of the bookkeeping, below). */
    if (__builtin_expect(hprof_config.sampling_clock != HPROF_CLOCK_CPU, 1))
        window_add_mpi_time(&t->sampling.window, ns);
    /* At the tree's cap the call still counts, under (call tree full). */
    cct_node *n = &t->tree.nodes[cct_or_full(&t->tree, node)];
    add_call(n, call, ns, exact);
    if (counter >= 0)
        n->counter[counter]++;
    COST_MARK(4);
    uint32_t bucket = timeline_add_call(&t->timeline, end, ns, call->bytes[HPROF_BYTES_SENT],
                                        call->bytes[HPROF_BYTES_RECEIVED]);
    path_log_add_in(&t->paths, t->timeline.shift, bucket, PL_MPI, cct_or_full(&t->tree, node), end, ns);
    /* On the CPU clock the call's time runs from the read at its entry to
     * this one, the last of its bookkeeping, plus the parts of the two
     * reads outside them (about one read's cost, window.h): all of it
     * hprof's or MPI's, none of it the program's computation. */
    if (__builtin_expect(hprof_config.sampling_clock == HPROF_CLOCK_CPU, 0)) {
        uint64_t cost, cpu = window_cpu_read(&cost);
        window_add_mpi_time(&t->sampling.window,
                            cpu - call->start_cpu_ns + (call->start_cpu_cost_ns + cost) / 2);
    }
}

STRAIGHT void record(hprof_thread *t, hprof_call *call)
{
    COST_RESTART();
    int counter = -1;
    uint32_t site;
    uint32_t node = node_of_call(t, call, &counter, &site);
    int cached = site != CCT_NONE && site != SITE_NOUNWIND; /* the caller's activation is unchanged */
    /* polls that completed nothing on the previous call's path (HPROF_VERBOSE=1) */
    t->polls_repeated +=
        (uint64_t)(call->poll & (site != CCT_NONE && site == t->last_site && call->fn == t->last_fn));
    t->last_site = node == CCT_NONE ? CCT_NONE : site;
    t->last_fn = call->fn;
    COST_MARK(2);
    if (__builtin_expect(call->chained, 0) && call->poll && cached && node != CCT_NONE && counter < 0 &&
        record_in_poll_run(t, call, node, site))
        return;
    /* The call's event counts: exact, from the read at its entry to now. */
    if (__builtin_expect(hprof_papi_nevents != 0, 0))
        hprof_papi_call_end(&t->papi, node == CCT_NONE ? NULL : t->tree.nodes[node].event);
    /* The clock stops after the unwind: hprof's own cost per call is part of
     * that call's MPI time, so it never inflates the computation time that
     * the sampler attributes to the code around the call. */
    uint64_t end = hprof_now_ns();
    uint64_t ns = end - call->start_ns;
    int exact = 1;
    if (__builtin_expect(call->chained, 0)) {
        ns = end_poll_run(t, call, end, ns, &exact);
    } else {
        ns += tail_estimate(t, end, ns);
        if (call->poll && cached && node != CCT_NONE && hprof_config.poll_stride_us &&
            hprof_config.sampling_clock == HPROF_CLOCK_WALL && !hprof_papi_nevents &&
            poll_rules_may_open(&t->poll))
            poll_run_open(t, call->frame, end, ns);
    }
    COST_MARK(3);
    book_call(t, call, node, counter, end, ns, exact);
    if (!call->chained && hprof_config.sampling_clock == HPROF_CLOCK_WALL && tail_due(t)) {
        int kind = hprof_stamp_kind();
        uint64_t done = hprof_stamp_read(kind), again = hprof_stamp_read(kind);
        tail_measure(t, end, kind, done, again);
    }
    COST_MARK(5);
}

static __attribute__((noinline)) void record_call(hprof_thread *t, hprof_call *call)
{
    record(t, call);
}

/* ---- polls in the thread's polling run (measure.h, poll_run.h) ---------- */

void hprof_poll_resume(hprof_call *call, struct hprof_thread *t, int fn, void *frame, uint64_t start)
{
    uint64_t end = start ? poll_run_span_end(t, &start) : 0; /* a timed poll's end first */
    call_start(call, fn, frame, t, start ? HPROF_POLL_CHAINED_TIMED : HPROF_POLL_CHAINED);
    call->start_ns = start;
    call->poll_end_ns = end;
    for (int i = 0; i < HPROF_NBYTES; i++)
        call->bytes[i] = 0;
}

/* Shared with the runtime (the init call's own record, runtime.h). */
void hprof_record_call(hprof_call *call)
{
    record_call(hprof_self, call);
}

/* ---- the end of a call ------------------------------------------------- */

/* The thread leaves the call, its bookkeeping done. */
STRAIGHT void leave_call(hprof_thread *t)
{
    SIGNAL_FENCE();
    t->depth--;
    COST_MARK(6);
}

/* The end of a call that is not the common case: the whole record. */
static __attribute__((noinline)) void end_apart(hprof_thread *t, hprof_call *call)
{
    if (call->measured)
        record(t, call);
    leave_call(t);
}

/* The common case's end past the time line's current bucket: the call in
 * another bucket, or over several (timeline_add_call's slow path). */
static __attribute__((noinline)) void end_beside_bucket(hprof_thread *t, const hprof_call *call,
                                                        uint32_t node, uint64_t end, uint64_t ns)
{
    uint32_t bucket = timeline_add_call(&t->timeline, end, ns, call->bytes[HPROF_BYTES_SENT],
                                        call->bytes[HPROF_BYTES_RECEIVED]);
    path_log_add_in(&t->paths, t->timeline.shift, bucket, PL_MPI, node, end, ns);
    leave_call(t);
}

/* The common case's end where the path log's cache does not hold the
 * call's (node, bucket). */
static __attribute__((noinline)) void end_beside_path_log(hprof_thread *t, uint32_t node, uint64_t end,
                                                          uint64_t ns)
{
    path_log_add(&t->paths, t->timeline.shift, PL_MPI, node, end, ns);
    leave_call(t);
}

/* The common case's end, one call in 32-95: its tail measured. */
static __attribute__((noinline)) void end_tail_measured(hprof_thread *t, uint64_t end, uint64_t done,
                                                        uint64_t again)
{
    tail_measure(t, end, HPROF_STAMP_TSC, done, again);
    leave_call(t);
}

/* The common case's node: a call that is neither a walk's nor a poll
 * run's, repeated from a call site the thread knows, its node in the leaf
 * memo; CCT_NONE for every other call (end_apart's). A poll from a known
 * site may open a polling run: not the common case either, unless the
 * thread's runs were too short to be worth opening (poll_rules_ended). */
STRAIGHT uint32_t straight_node(hprof_thread *t, const hprof_call *call, uint32_t *site, int *counter)
{
    if (__builtin_expect(!call->measured || call->chained || !straight_measure(), 0))
        return CCT_NONE;
    *site = hprof_fn_nounwind && hprof_fn_nounwind[call->fn] ? SITE_NOUNWIND : mpi_site_cached(call->frame);
    if (*site == CCT_NONE || (call->poll && *site != SITE_NOUNWIND && !t->poll.opens_skipped))
        return CCT_NONE;
    const struct hprof_leaf_memo *m = memo_of(t, *site, call->fn);
    if (m->site != *site || m->fn != call->fn)
        return CCT_NONE;
    *counter = m->counter;
    return m->leaf ? m->leaf : CCT_NONE;
}

/* The common case, one straight path: the thread's record, the node, the
 * time line's current bucket and the path log's cached entry, no call
 * (every other case a tail call), so no register saved for one
 * (tests/arch/hot_path.sh). What it books is what record() books. */
void hprof_call_end(hprof_call *call)
{
    hprof_thread *t = call->thread;
    if (!t)
        return;
    t->in_flight = NULL; /* before the record: a signal meanwhile must not book the call twice */
    SIGNAL_FENCE();
    uint32_t site;
    int counter;
    uint32_t node = straight_node(t, call, &site, &counter);
    if (__builtin_expect(node == CCT_NONE, 0))
        return end_apart(t, call);
    if (__builtin_expect(call->poll, 0)) { /* of a function not unwound, or while runs open none */
        t->polls_repeated += (uint64_t)(site == t->last_site && call->fn == t->last_fn);
        t->poll.opens_skipped -= (uint32_t)(site != SITE_NOUNWIND); /* poll_rules_may_open's count */
    }
    t->last_site = site;
    t->last_fn = call->fn;
    uint64_t end = hprof_tsc_to_ns(hprof_read_tsc()); /* after the lookup, as record's */
    uint64_t ns = end - call->start_ns;
    ns += tail_within(t, end, ns); /* the straight path is the wall clock's */
    window_add_mpi_time(&t->sampling.window, ns);
    cct_node *n = &t->tree.nodes[node];
    add_call(n, call, ns, 1);
    if (counter >= 0)
        n->counter[counter]++;
    uint64_t *row = timeline_current_row(&t->timeline, end, ns);
    if (__builtin_expect(!row, 0)) {
        if (t->timeline.bucket)
            return end_beside_bucket(t, call, node, end, ns);
    } else {
        timeline_row_add_call(row, ns, call->bytes[HPROF_BYTES_SENT], call->bytes[HPROF_BYTES_RECEIVED]);
        path_entry *e = path_log_cached(&t->paths, t->timeline.shift, t->timeline.cur, node);
        if (e)
            e->ns[PL_MPI] += ns;
        else if (t->paths.e)
            return end_beside_path_log(t, node, end, ns);
    }
    if (tail_due(t)) {
        uint64_t done = hprof_read_tsc(), again = hprof_read_tsc();
        return end_tail_measured(t, end, done, again);
    }
    leave_call(t);
}

void hprof_call_book_in_flight(void)
{
    hprof_thread *t = hprof_self;
    hprof_call *call = t ? t->in_flight : NULL;
    if (!call || !call->measured || call->chained)
        return;
    t->in_flight = NULL;
    SIGNAL_FENCE();
    record_call(t, call);
}

uint32_t hprof_call_stopped_node(hprof_thread *t)
{
    const hprof_call *call = t->in_flight;
    if (!call || !call->measured || call->chained || t->depth <= 0)
        return CCT_NONE;
    if (t->in_flight_node != CCT_NONE || cct_reserve(&t->tree, 2) != 0)
        return t->in_flight_node;
    return cct_child(&t->tree, cct_child(&t->tree, CCT_ROOT, CCT_KEY_NOT_UNWOUND), CCT_KEY_MPI_FN(call->fn));
}

void hprof_call_book_stopped(hprof_thread *t)
{
    uint32_t node = hprof_call_stopped_node(t);
    if (node == CCT_NONE)
        return;
    hprof_call *call = t->in_flight;
    t->in_flight = NULL;
    uint64_t end = hprof_now_ns(), ns = end > call->start_ns ? end - call->start_ns : 0;
    window_add_mpi_time(&t->sampling.window, ns);
    add_call(&t->tree.nodes[node], call, ns, 1);
    timeline_add_call(&t->timeline, end, ns, call->bytes[HPROF_BYTES_SENT],
                      call->bytes[HPROF_BYTES_RECEIVED]);
}

void hprof_call_locate_in_flight(hprof_thread *t)
{
    hprof_call *call = t->in_flight;
    if (!call || !call->measured || call->chained || t->in_flight_node != CCT_NONE)
        return;
    if (hprof_fn_nounwind && hprof_fn_nounwind[call->fn])
        return; /* its place: (not unwound) > MPI_X, as a snapshot books it */
    int failed;
    uint32_t node = unwind_mpi_node_in_handler(&t->tree, call->frame, &failed);
    if (failed && node == CCT_NONE)
        return; /* a later sample tries again */
    t->in_flight_node = node == CCT_NONE ? CCT_NONE : cct_child(&t->tree, node, CCT_KEY_MPI_FN(call->fn));
}
