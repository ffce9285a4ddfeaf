/*
 * local_profile.h - this rank's profile at finalize: the raw per-thread
 * calling context trees turned into regions and cnodes (unified definitions)
 * with metric values per cnode and thread.
 */
#ifndef HPROF_LOCAL_PROFILE_H
#define HPROF_LOCAL_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "report/profile/defs.h"
#include "report/profile/metrics.h"
#include "report/profile/snapshot.h"

/* Time of one cnode in one bucket of a thread's path log (core/path_log.h):
 * t0 is the bucket's start (ns since MPI_Init), a multiple of 2^shift. */
typedef struct local_path_time {
    uint64_t t0;
    int cnode;
    uint64_t ns[2]; /* MPI, computation */
} local_path_time;

typedef struct local_profile {
    defs *defs;
    int nthreads;
    double *values;    /* [cnode][thread][metric] */
    int values_cnodes; /* cnodes with values (the rest of values_cap is not set) */
    int values_cap;
    char **thread_names;         /* [thread]: "Master thread 0", "OpenMP thread 3", "pthread 2 (worker)" */
    local_path_time *path_times; /* every thread's path log, by local cnode */
    size_t npath_times;
    uint32_t path_shift;      /* the widest thread log's bucket width (2^shift ns) */
    int paths_on;             /* some thread kept a path log */
    int paths_failed;         /* no memory for them: none */
    uint64_t path_spilled[2]; /* ns the logs could give no path */
} local_profile;

/* This rank's profile from the runtime's snapshot (snapshot.h), which
 * also sets the metrics' events (metrics_use_events). NULL when out of
 * memory or when the snapshot is inconsistent (a thread's location out of
 * range, two threads at one location). */
local_profile *local_profile_build(const hprof_snapshot *s);
void local_profile_free(local_profile *p);

static inline double *local_profile_values(local_profile *p, int cnode, int thread)
{
    return p->values + ((size_t)cnode * (size_t)p->nthreads + (size_t)thread) * (size_t)metrics_nlocal();
}

#endif
