/*
 * vtl_findings.h - what the timeline shows that the call tree cannot: a
 * rank computing much longer than the others for a stretch, and moments
 * where the MPI share of all ranks jumps (--timeline, --hotspots).
 */
#ifndef HPROF_VTL_FINDINGS_H
#define HPROF_VTL_FINDINGS_H

#include <stdio.h>

#include "tools/hprof-view/vtl_data.h"

/* A stretch where a rank computes much longer than the others. */
typedef struct vtl_stretch {
    int rank, b0, b1;  /* buckets [b0, b1) */
    double ratio;      /* the rank's computation / the others' mean */
    int path;          /* the path that explains it best, -1: none */
    double path_ratio; /* the same ratio on that path */
    double excess;     /* seconds above the others' mean */
} vtl_stretch;

int vtl_slow_stretches(const timeline *tl, const cube_profile *p, vtl_stretch *out, int max);
/* Moments where the MPI share of all ranks jumps by 30 points: printed. */
int vtl_share_jumps(const timeline *tl, FILE *out, int budget);

#endif
