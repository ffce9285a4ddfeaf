/*
 * local_profile.h - this rank's profile at finalize: the raw per-thread
 * calling context trees turned into regions and cnodes (unified definitions)
 * with metric values per cnode and thread.
 */
#ifndef HPROF_LOCAL_PROFILE_H
#define HPROF_LOCAL_PROFILE_H

#include "defs.h"
#include "metrics.h"

typedef struct local_profile {
    defs *defs;
    int nthreads;
    double *values;   /* [cnode][thread][metric] */
    int values_cnodes;    /* cnodes with values (the rest of values_cap is not set) */
    int values_cap;
    char **thread_names;  /* [thread]: "Master thread 0", "OpenMP thread 3", "pthread 2 (worker)" */
} local_profile;

local_profile *local_profile_build(void);
void local_profile_free(local_profile *p);

static inline double *local_profile_values(local_profile *p, int cnode, int thread)
{
    return p->values + ((size_t)cnode * (size_t)p->nthreads + (size_t)thread) * (size_t)metrics_nlocal();
}

#endif
