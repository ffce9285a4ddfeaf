/*
 * view_speedscope_time.h - the time line in speedscope's file (--speedscope):
 * per rank (the first SPEEDSCOPE_TIME_RANKS), an "evented" profile "rank R
 * over time" of the heaviest call paths (hprof.timeline, vtl_data.h). In
 * each of at most SPEEDSCOPE_TIME_COLS columns of the run, each path's
 * frames are open for the time it took there, callees among the paths
 * inside their caller's span, one after the other: speedscope's "Time
 * Order" view then shows what the rank did when. A path deeper than
 * VT_PATH_FRAMES frames is left out.
 */
#ifndef HPROF_VIEW_SPEEDSCOPE_TIME_H
#define HPROF_VIEW_SPEEDSCOPE_TIME_H

#include "tools/hprof-view/view.h"

#define SPEEDSCOPE_TIME_RANKS 16
#define SPEEDSCOPE_TIME_PATHS 8
#define SPEEDSCOPE_TIME_COLS 128

/* Writes the profiles, each preceded by ",\n"; frame f of a region r is
 * r (the caller numbers its frames so). Returns how many it wrote (0
 * without a timeline), -1 when out of memory. */
int speedscope_time_profiles(const cube_profile *p, const view_opts *o, FILE *out);

#endif
