/*
 * view_reduced.h - a file written with HPROF_LOCATIONS=reduced holds, in
 * its member hprof.locations.z (report/profile/locations_file.h), the
 * ranks where each metric's min and max over the ranks occur, per call
 * path; the views say them beside the min and max locations' values.
 */
#ifndef HPROF_VIEW_REDUCED_H
#define HPROF_VIEW_REDUCED_H

#include <stdint.h>

#include "report/cube/reader/cube_reader.h"

/* The locations of a reduced file: sum, min, max, then key ranks; the
 * views show the sum unless --rank picks another. */
#define VIEW_REDUCED_SUM 0
#define VIEW_REDUCED_MIN 1
#define VIEW_REDUCED_MAX 2

typedef struct view_reduced {
    int nmetrics, nrows; /* metric ids, cnode ids */
    long long nranks;    /* the ranks the file stands for */
    int32_t *at;         /* per metric id, per cnode id: min's rank, max's rank (-1: none) */
} view_reduced;

/* Whether p was written with reduced locations (hprof::locations). */
int view_reduced_file(const cube_profile *p);
/* 1 when p holds a readable member (r filled), else 0 (r empty; a member
 * that does not fit p is ignored). */
int view_reduced_load(const cube_profile *p, view_reduced *r);
/* The ranks of metric index m's min and max at cnode index c: 1, or 0
 * where the member says none. */
int view_reduced_ranks(const cube_profile *p, const view_reduced *r, int m, int c, int *min_rank,
                       int *max_rank);
void view_reduced_free(view_reduced *r);

#endif
