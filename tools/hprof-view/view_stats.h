/*
 * view_stats.h - per-rank statistics shared by --ranks, --mpi, --hotspots
 * (view_ranks.c). All need vt_metric_locs() for the metric first.
 */
#ifndef HPROF_VIEW_STATS_H
#define HPROF_VIEW_STATS_H

#include "tools/hprof-view/vtree.h"

typedef struct rank_stats {
    double min, mean, max, sum;
    int min_rank, max_rank; /* process indexes */
    double imbalance;       /* (max - mean) / max, 0 if max <= 0 */
} rank_stats;

void rank_stats_of(const vtree *t, int m, int v, int inclusive, rank_stats *s);
/* "[ .:@ ]": one character per rank (or group of ranks beyond 64). */
void print_strip(const vtree *t, const view_opts *o, int m, int v, int inclusive, double scale, FILE *out);
/* In-focus vnodes with key > 0 (MPI ones only if only_mpi), largest key
 * first, at most limit: written to out (room for t->nv), count returned. */
int view_top_nodes(const vtree *t, const double *key, int only_mpi, int limit, int *out);

#endif
