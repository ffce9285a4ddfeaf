/*
 * snapshot.h - the runtime's state as report/ reads it: this rank's
 * locations (live threads, kept ended ones, the ones ended threads were
 * merged into), each with its calling context tree and path log, and the
 * PAPI events requested and counted. The runtime (lib/) fills one at
 * MPI_Finalize or in the fallback writer, once the thread list is frozen
 * (the trees no longer change shape), and hands it to the merge
 * (report/merge/merge.h) or the fallback writer (fallback.h); a test or a
 * tool can build one by hand. report/ calls nothing of the runtime.
 *
 * Everything a snapshot points to (trees, logs, strings) is the caller's
 * and must stay valid until the profile is written.
 */
#ifndef HPROF_SNAPSHOT_H
#define HPROF_SNAPSHOT_H

#include <stdint.h>

#include "core/cct.h"
#include "core/path_log.h"

typedef struct snapshot_thread {
    const cct *tree;
    const hprof_path_log *paths; /* its call paths over time; NULL or e == NULL: none */
    int index;                   /* its location: 0..nlocations-1 */
    uint64_t start_routine;      /* what the thread was created to run; 0: unknown */
    uint64_t ended_threads;      /* >0: that many ended threads with this start
                                  * routine merged into one location */
    const char *name;            /* NULL: named from the start routine
                                  * ("pthread 2 (worker)", "OpenMP thread 3", ...) */
} snapshot_thread;

/* A PAPI event of HPROF_METRICS. */
typedef struct snapshot_event {
    const char *name;        /* as written in HPROF_METRICS */
    const char *units;       /* PAPI's, "#" when it has none */
    const char *description; /* PAPI's, "PAPI event" when it has none */
    int slot;                /* index into the nodes' event counts on this
                              * rank; -1: not counted here */
} snapshot_event;

typedef struct hprof_snapshot {
    const snapshot_thread *threads;
    int nthreads;   /* entries of threads */
    int nlocations; /* location indexes 0..nlocations-1 */
    /* The name of the runtime's thread trampoline, the frame below every
     * created thread's own: left out of paths like the C start-up frames
     * (NULL: none). */
    const char *thread_trampoline;
    const snapshot_event *events; /* the requested events, in HPROF_METRICS order */
    int nevents;                  /* at most 62 are used */
    int events_counted;           /* length of the nodes' event arrays (cct.h) */
} hprof_snapshot;

#endif
