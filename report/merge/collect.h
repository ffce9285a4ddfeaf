/*
 * collect.h - the metric values of every rank to rank 0's writer, metric
 * by metric, in chunks of consecutive file cnode ids (bounded memory on
 * rank 0). Only values other than zero travel, with their place: a
 * profile of a million call paths is mostly zeros.
 */
#ifndef HPROF_COLLECT_H
#define HPROF_COLLECT_H

#include <mpi.h>

#include "report/cube/writer/cube_writer.h"
#include "report/profile/local_profile.h"

/* This rank's values, metric by metric (metrics_count(): call it after
 * metrics_set_events), only those whose bits are not all zero, keyed by
 * its own cnode ids. Frees lp->values: their memory is free again before
 * the merge needs its own. Never NULL unless out of memory. */
typedef struct value_columns value_columns;
value_columns *collect_columns(local_profile *lp);
void collect_columns_free(value_columns *vc);

typedef struct collect_job {
    MPI_Comm comm;
    int rank;
    cube_writer *w;         /* rank 0: the file, defined; NULL elsewhere */
    const int *nthreads;    /* rank 0: locations of each rank */
    int nprocs, nlocations; /* rank 0 */
    value_columns *columns; /* this rank's (collect_columns): sorted into file id order */
    const int *ids;         /* this rank's cnode -> file cnode id (-1: not placed); may be NULL */
    int nlocal;             /* this rank's own cnodes (ids entries) */
    int nglobal;            /* cnodes in the file */
} collect_job;

/* Collective over job->comm. 0, or -1 when something failed (on rank 0:
 * the writer then holds the reason). */
int collect_values(const collect_job *job);

#endif
