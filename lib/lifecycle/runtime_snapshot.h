/*
 * runtime_snapshot.h - the runtime's state, as data for report/
 * (report/profile/snapshot.h): this rank's threads with their trees and
 * path logs, and the PAPI events. Taken at MPI_Finalize's merge and by
 * the fallback writer, after hprof_thread_freeze (the list and the trees'
 * shape no longer change); it points into the threads' records, which
 * stay to the end of the process.
 */
#ifndef HPROF_RUNTIME_SNAPSHOT_H
#define HPROF_RUNTIME_SNAPSHOT_H

#include "report/profile/snapshot.h"

typedef struct runtime_snapshot {
    hprof_snapshot s;         /* what report/ is handed */
    snapshot_thread *threads; /* owned */
    snapshot_event *events;   /* owned */
} runtime_snapshot;

/* 0, or -1 when out of memory: rs->s is then an empty snapshot (no
 * thread, no event), which report/ turns into an empty profile. */
int runtime_snapshot_take(runtime_snapshot *rs);
void runtime_snapshot_release(runtime_snapshot *rs);

#endif
