/*
 * thread.h - per-thread measurement state.
 *
 * Each thread that makes a measured MPI call gets a hprof_thread, created on
 * its first call and kept on a list so finalize can find every thread's
 * tree, also of threads that have ended. The current thread's state is
 * reached through an initial-exec TLS pointer, which is safe to read from a
 * signal handler.
 *
 * Ended threads: the first ENDED_KEPT of a process keep their own location
 * (their tree shrunk to its nodes); after that each one's tree is merged,
 * as it ends, into one location per start routine ("N ended threads
 * (routine)") and its memory is reused, so memory stays bounded by the
 * live threads plus the distinct call paths however many threads come and
 * go, and every total (sum over locations) stays exact. Adding to and
 * taking from the list happen under one lock (thread start and end only);
 * readers walk it without the lock once it is frozen (hprof_thread_freeze).
 */
#ifndef HPROF_THREAD_H
#define HPROF_THREAD_H

#include <stddef.h>
#include <stdint.h>

#include "core/cct.h"
#include "lib/sampling/papi_events.h"
#include "core/path_log.h"
#include "lib/polls/poll_rules.h"
#include "lib/sampling/sampling.h"
#include "core/timeline.h"
#include "unwind/unwind.h"

#define HPROF_LEAF_MEMO 16 /* a power of two */

typedef struct hprof_thread {
    /* a poll of the lean path (poll_run.h) touches one line of the record
     * and the caller's token on the next (poll_rules.h): the record is
     * aligned to a cache line (thread.c) */
    _Alignas(64) int depth;     /* MPI wrappers currently active on this thread */
    int index;                  /* location index within the process, 0 = first */
    struct hprof_poll_run poll; /* polling loops: the run of polls that complete nothing (poll_run.h) */
    cct tree;
    void *scratch; /* see hprof_thread_scratch() */
    size_t scratch_size;
    struct hprof_sampling sampling;
    hprof_papi_thread papi;  /* HPROF_METRICS event set and readings */
    uint64_t start_routine;  /* the routine the thread was created to run; 0: unknown */
    hprof_timeline timeline; /* the thread's profile over time */
    hprof_path_log paths;    /* its call paths over time (HPROF_TIME_PATHS) */
    /* measure.c's call paths known without a walk: per (call site,
     * function), the call's node; and the previous call's site and function */
    struct hprof_leaf_memo {
        uint32_t site, leaf;
        int fn, counter;
    } leaf_memo[HPROF_LEAF_MEMO];
    /* written by every call: one line, in every build (PAPI's fields above vary) */
    _Alignas(64) uint32_t last_site; /* CCT_NONE: no site known (first call, failed walk, PAPI) */
    int last_fn;
    /* hprof's work after a call's end stamp, added to each call (measure.c):
     * its running mean in ns, and the calls until the next that measures it */
    uint32_t tail_ns, tail_countdown;
    uint64_t polls_in_runs;       /* polls counted in runs (HPROF_VERBOSE=1) */
    uint64_t polls_timed;         /* of them timed */
    uint64_t polls_repeated;      /* polls that completed nothing recorded that way (HPROF_VERBOSE=1) */
    struct hprof_call *in_flight; /* the measured MPI call under way (measure.c), NULL outside one */
    uint32_t in_flight_node;      /* its node once a sample in it found it (CCT_NONE: not yet) */
    uint64_t poll_cpu_reads;      /* reads of the CPU clock for polls in runs */
    uint64_t polls_off_cpu_ns;    /* their MPI time for time off the CPU */
    uint64_t exact_failed;        /* exact entries whose walk failed (their visits: under (unwind failed)) */
    struct uw_thread *exact_uw;   /* uw_self, once an exact entry made its exact stack (exact_entry.c's
                                   * fast path: one thread-local read); gone with hprof_self */
    uint64_t ended_threads;       /* >0: not a thread but the location that many ended threads
                             * with this start_routine were merged into */
    struct hprof_thread *next;
} hprof_thread;

_Static_assert(offsetof(hprof_thread, poll) + POLL_LEAN_BYTES <= 64 && offsetof(hprof_thread, poll) % 64 == 8,
               "the lean poll path's fields on the line of depth, the caller's token whole on the next");

_Static_assert(offsetof(hprof_thread, last_site) / 64 == offsetof(hprof_thread, in_flight_node) / 64,
               "the fields every call writes (last_site to in_flight_node) on one line");

extern __thread hprof_thread *hprof_self __attribute__((tls_model("initial-exec"), visibility("hidden")));
/* Set when the thread's next poll in its polling run is likely the one
 * timed (poll_run.h): a hint beside hprof_self, read before anything of
 * the thread's state, so that a timed poll's clock starts as early as the
 * program's own would. */
extern __thread int hprof_poll_time_next __attribute__((tls_model("initial-exec"), visibility("hidden")));

/* The calling thread's state, created if needed (not from a signal handler).
 * NULL if it could not be created. */
hprof_thread *hprof_thread_get(void);

/* A visit of a function measured exactly on a thread hprof has not met,
 * at an entry that may run in a signal handler: the thread is not
 * registered there (that allocates and takes the registry's lock, which
 * the interrupted code may hold), the visit is not measured but counted
 * here. Async-signal-safe. */
void hprof_thread_unmet_visit(void);
/* Those visits so far, in this process. */
uint64_t hprof_thread_unmet_visits(void);

/* The calling thread ends (its window is closed): its data stays in the
 * profile (see above), its memory goes, hprof_self is cleared. After
 * hprof_thread_freeze it only clears hprof_self. */
void hprof_thread_end(hprof_thread *t);

/* From now on the list no longer changes shape (threads that end keep
 * their records) and indexes are dense, 0..count-1 in the order threads
 * appeared: for finalize and the fallback writer. may_wait 0 (signal
 * handlers): wait for a thread that is ending at most briefly, and never
 * for the calling thread itself. */
void hprof_thread_freeze(int may_wait);

/* Code of module id, [low, high), was unloaded: the nodes of every tree
 * keyed by an address in it are re-keyed to CCT_KEY_UNLOADED(id, address),
 * so they keep their module's names and code loaded there later gets
 * nodes of its own. A hook of unwind/modules.h. */
void hprof_thread_forget_code(int id, uint64_t low, uint64_t high);

/* A per-thread scratch buffer of at least `bytes` bytes, for wrappers that
 * must substitute status arrays (MPI_STATUSES_IGNORE) or keep copies of
 * request arrays. Valid until the next call on the same thread. Grows by
 * mmap when needed; returns NULL if that fails (the wrapper then skips the
 * byte counting, never the MPI call). Only call it when call->measured. */
void *hprof_thread_scratch(size_t bytes);

/* fn(tree, ctx) for the tree of every location, under the registry's
 * lock: no thread's tree goes meanwhile (a thread that ends waits). For
 * background work that reads the trees (lib/exact's selection by the
 * calls and MPI paths seen); not from signal handlers. */
void hprof_thread_each_tree(void (*fn)(const cct *tree, void *ctx), void *ctx);

/* The start routines of the locations (created threads, kept ended ones,
 * merged ones; 0s left out, duplicates kept): up to max into out,
 * returning how many there are. Under the registry's lock, as above. */
int hprof_thread_start_routines(uint64_t *out, int max);

/* Every location: live threads, kept ended ones, merged ones; newest first. */
hprof_thread *hprof_thread_list(void);
int hprof_thread_count(void);

/* For the snapshot handed to report/ (report/profile/snapshot.h), once the
 * list is frozen: up to max threads into out (newest first), returning how
 * many there are; the name of the trampoline below every created thread's
 * own frame (thread_start.c). */
struct snapshot_thread;
int hprof_thread_snapshot(struct snapshot_thread *out, int max);
extern const char hprof_thread_trampoline[];

#endif
