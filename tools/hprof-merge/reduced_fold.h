/*
 * reduced_fold.h - hprof-merge --locations reduced: the inputs' ranks
 * folded, one input at a time, into the six locations of a reduced file
 * (report/profile/locations_file.h) as MPI_Finalize's merge reduces them:
 * per metric and call path the sum, min and max over the ranks, the ranks
 * of min and max, and the values of three key ranks (the lowest rank, the
 * ranks of least and most time; a tie goes to the lower rank). Memory:
 * metrics x call paths, whatever the number of ranks.
 */
#ifndef HPROF_REDUCED_FOLD_H
#define HPROF_REDUCED_FOLD_H

#include <stddef.h>

#include "report/cube/reader/cube_reader.h"
#include "report/cube/writer/cube_writer.h"

/* The key ranks, found over the inputs (a first pass). */
typedef struct reduced_keys {
    long long rank[3]; /* lowest rank, least time, most time */
    double least, most;
    int any;
} reduced_keys;

/* Takes p's processes into the key ranks (their time: the sum of metric
 * "time" over their call paths and threads). 0, or -1 with a reason. */
int reduced_keys_take(reduced_keys *k, cube_profile *p, char *err, size_t errlen);

typedef struct reduced_fold reduced_fold;

/* nmetrics metrics (their unique names, dtypes) over ncnodes merged call
 * paths; NULL out of memory. */
reduced_fold *reduced_fold_new(int nmetrics, const char *const *uniq, const char *const *dtypes, int ncnodes,
                               const reduced_keys *keys);

/* Folds p's processes in: cnode_map gives each of p's cnodes its merged
 * one. A metric p lacks is 0 on its ranks. 0, or -1 with a reason. */
int reduced_fold_take(reduced_fold *f, cube_profile *p, const int *cnode_map, char *err, size_t errlen);

/* After cube_writer_define (the six processes): every metric's rows and
 * the member, nranks ranks summarised. 0, or -1 (the writer's reason). */
int reduced_fold_write(reduced_fold *f, cube_writer *w, long long nranks);

void reduced_fold_free(reduced_fold *f);

#endif
