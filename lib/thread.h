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
#include "lib/papi_events.h"
#include "core/path_log.h"
#include "lib/sampler.h"
#include "core/timeline.h"
#include "unwind/unwind.h"

#define HPROF_LEAF_MEMO 16 /* a power of two */
#define HPROF_POLL_RUN_NODES 4 /* call sites a polling loop takes in turn */

typedef struct hprof_thread {
    cct tree;
    int index;              /* location index within the process, 0 = first */
    int depth;              /* MPI wrappers currently active on this thread */
    void *scratch;          /* see hprof_thread_scratch() */
    size_t scratch_size;
    struct hprof_sampling sampling;
    hprof_papi_thread papi; /* HPROF_METRICS event set and readings */
    uint64_t start_routine; /* the routine the thread was created to run; 0: unknown */
    hprof_timeline timeline; /* the thread's profile over time */
    hprof_path_log paths;   /* its call paths over time (HPROF_TIME_PATHS) */
    /* measure.c's call paths known without a walk: per (call site,
     * function), the call's node; and the previous call's site and function */
    struct hprof_leaf_memo { uint32_t site, leaf; int fn, counter; } leaf_memo[HPROF_LEAF_MEMO];
    uint32_t last_site;     /* CCT_NONE: no site known (first call, failed walk, PAPI) */
    int last_fn;
    /* polling loops: the run of polls that complete nothing (poll_run.h) */
    struct hprof_poll_run {
        const void *frame;   /* the run's frame; NULL: no run */
        uint64_t read_ns;    /* the last credit: the polls' time is credited up to here */
        uint64_t open_ns;    /* the run's start */
        uint64_t first_ns;   /* the opening poll's time: the estimate before any poll was timed */
        uint32_t pending;    /* polls since read_ns: visits counted, time to come */
        uint32_t due;        /* pending polls when the next poll is timed */
        uint32_t stride;     /* polls from the last timed poll (or the opening) to the next timed one */
        uint32_t n;          /* the mean stride drawn (N) */
        uint64_t timed_at_ns; /* the end of the last timed poll (or of the opening) */
        uint32_t rng;        /* the strides' random state (xorshift) */
        uint32_t timed;      /* timed polls in the run (lumps left out) */
        uint32_t tallied;    /* pending polls counted as repeats or not when added (the others are) */
        uint32_t streak_from; /* pending polls when the latest entry became the latest */
        uint64_t cpu_ns, cpu_at_ns; /* the thread's CPU clock read in the run, and the time then (0: none) */
        uint64_t cpu_credited_ns; /* MPI time credited since then */
        uint64_t cpu_lump_ns;     /* timed polls' time far above their mean, held since then */
        uint64_t on_credited_ns, on_ns; /* over the run's reads: MPI time credited, time on the CPU */
        uint32_t nnodes;     /* the nodes met in the run */
        struct hprof_poll_node {
            uint32_t node, site; /* the node, and its call site's node (unwind_mpi_cached) */
            int fn;
            uint32_t polls;      /* pending polls on it */
            uint64_t ra, bp;     /* the wrapper frame's return address and saved rbp */
            uint64_t bp_mask;    /* ~0: the rbp tells call paths apart there, else 0 */
            uint64_t timed_ns;   /* its timed polls in the run (outliers left out): their time, */
            uint32_t timed;      /* and how many */
            uint32_t seg_timed;  /* its timed polls since read_ns (outliers too), */
            uint64_t seg_ns;     /* and their time */
            uint64_t cpu_credited_ns; /* MPI time credited to it since the CPU clock's read */
        } nodes[HPROF_POLL_RUN_NODES];
        uint32_t last;       /* the entry of the latest poll */
        unwind_token caller; /* the frame's caller unchanged since its entries were made */
        uint64_t prior_mean_ns; /* the mean timed poll of the thread's last run that had one */
    } poll;
    uint64_t polls_in_runs; /* polls counted in runs (HPROF_VERBOSE=1) */
    uint64_t polls_timed;   /* of them timed */
    uint64_t poll_cpu_reads; /* reads of the CPU clock for them */
    uint64_t polls_off_cpu_ns; /* their MPI time for time off the CPU */
    uint64_t polls_repeated; /* polls that completed nothing recorded that way (HPROF_VERBOSE=1) */
    uint64_t ended_threads; /* >0: not a thread but the location that many ended threads
                             * with this start_routine were merged into */
    struct hprof_thread *next;
} hprof_thread;

extern __thread hprof_thread *hprof_self __attribute__((tls_model("initial-exec"), visibility("hidden")));

/* The calling thread's state, created if needed (not from a signal handler).
 * NULL if it could not be created. */
hprof_thread *hprof_thread_get(void);

/* Same, and when it had no state yet and the measurement runs, its
 * sampling starts now (threads that first show up in an MPI call). */
hprof_thread *hprof_thread_enter(void);

/* Closes a thread's sampling window at now_ns (on the sampling clock). Its
 * last interval goes to its last sampled call path, or, without one, to the
 * routine it was started with. */
void hprof_thread_close(hprof_thread *t, uint64_t now_ns);

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
