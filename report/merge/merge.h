/*
 * merge.h - the cross-rank merge at MPI_Finalize: every rank's definitions
 * are unified at rank 0 by a binomial tree reduction over a private
 * duplicate of the communicator it is given (O(log P) rounds), the file's
 * cnode ids go back down the same tree (defs_reduce.h), then the metric
 * values that are not zero travel through a tree of aggregators that
 * compress the rows' parts, in bounded chunks of rows, and rank 0 streams
 * the parts into the CUBE4 writer (collect.h). Ranks that wait for rank
 * 0 sleep (quiet.h). HPROF_SIMULATE_RANKS=K: each rank is K processes of
 * the file (group_rows.h).
 */
#ifndef HPROF_MERGE_H
#define HPROF_MERGE_H

#include <mpi.h>

#include "report/profile/snapshot.h"

typedef struct merge_info {
    MPI_Comm comm;      /* over all processes that measure: from MPI_COMM_WORLD, or from a session */
    const char *output; /* HPROF_OUTPUT or NULL for a new name */
    const char *const *attr_keys; /* what was measured: stored as <attr> in the file */
    const char *const *attr_values;
    int nattrs;
    int compress;                             /* 1: ZCUBEX.DATA (zlib), 0: plain CUBEX.DATA */
    const struct hprof_timeline *timeline;    /* this rank's threads summed, or NULL */
    const struct timeline_phase_mark *phases; /* MPI_Pcontrol marks of this rank */
    int nphases;
    int time_paths;                    /* heaviest call paths kept over time (0: none) */
    int process_rank;                  /* this process's rank in MPI_COMM_WORLD: its number in the profile */
    unsigned long long phases_dropped; /* this rank's marks past the TIMELINE_MAX_PHASES kept */
    const hprof_snapshot *snapshot;    /* this rank's threads and events */
} merge_info;

/* Collective over info->comm; must be called by every rank before
 * PMPI_Finalize (or the finalize of the session info->comm came from). Returns 0 if the profile was written. Never aborts the
 * program: failures are reported in one line on rank 0. */
int hprof_merge_and_write(const merge_info *info);

/* The merge will not end (MPI_Abort or a fatal signal meanwhile): the
 * profile it may be writing is removed. Async-signal-safe. */
void hprof_merge_drop_output(void);

#endif
