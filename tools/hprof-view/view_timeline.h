/*
 * view_timeline.h - the timeline member of hprof's profiles
 * (report/merge/timeline_file.h), parsed for the views: --timeline and the
 * HTML report's heat map.
 */
#ifndef HPROF_VIEW_TIMELINE_H
#define HPROF_VIEW_TIMELINE_H

#include "view.h"

#define VTL_MEMBER "hprof.timeline"

typedef struct timeline {
    double width;              /* bucket width in seconds */
    int nb, nranks;
    double *v;                 /* [rank][field][bucket] */
    struct { int rank, level; double t; } *phase;
    int nphases;
} timeline;

/* 1: loaded; 0: the file has no timeline; -1: malformed or out of memory. */
int vtl_load(const cube_profile *p, timeline *tl);
void vtl_free(timeline *tl);
/* Buckets up to the last one with anything in it (at least 1). */
int vtl_used(const timeline *tl);
/* MPI time / (MPI + computation) of ranks [r0, r1) over buckets [b0, b1);
 * -1 where nothing was measured. */
double vtl_share(const timeline *tl, int r0, int r1, int b0, int b1);

#endif
