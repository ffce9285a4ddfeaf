/*
 * path_series.h - the heaviest call paths over time: from every rank's
 * path logs (local_profile's path_times, core/path_log.h), the k call
 * paths with the most inclusive time over all ranks are chosen, and each
 * rank's inclusive MPI and computation time on them per bucket is
 * computed, for the timeline member (timeline_file.h).
 *
 * A path is left out when one of its children holds (nearly) all of its
 * time: the child says the same, more precisely (main -> run -> solve,
 * all of it in solve, keeps solve only). The program root is never one.
 */
#ifndef HPROF_PATH_SERIES_H
#define HPROF_PATH_SERIES_H

#include <mpi.h>
#include <stdint.h>

#include "report/profile/defs.h"
#include "report/profile/local_profile.h"

/* What the timeline member needs of the paths (k 0: none). */
typedef struct timeline_paths {
    const local_profile *lp; /* its defs: on rank 0, every rank's (defs_reduce.h) */
    const int *global_of;    /* lp's cnode -> the file's cnode id, -1: unknown */
    int nglobal;             /* the file's cnodes */
    int k;
    int ids[1024]; /* the file's cnode ids, heaviest first */
} timeline_paths;

/* Collective over comm: chooses up to max paths into tp (tp->k, tp->ids),
 * the same on every rank; tp->k 0 when no rank kept path logs. The
 * nagree (at most PATH_SERIES_AGREE) values of agree become their max
 * over the ranks in the same reduction (the time line's sizes: a round
 * fewer); where the reduction fails they stay this rank's. */
#define PATH_SERIES_AGREE 8
void path_series_select(MPI_Comm comm, int rank, timeline_paths *tp, int max, unsigned *agree, int nagree);

/* This rank's series of the chosen paths at bucket width 2^shift: k x 2
 * (MPI, computation) x nb values in ns, zero where none (malloc'd; NULL
 * when out of memory). */
uint64_t *path_series_rows(const timeline_paths *tp, uint32_t shift, uint32_t nb);

#endif
