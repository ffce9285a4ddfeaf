/*
 * time_bounds.h - max_time on call paths without a measured call.
 *
 * cubelib (the Cube GUI's library) reads a MAXDOUBLE row of zeros as its
 * neutral value, -DBL_MAX, so a call path whose max_time is 0 on every
 * location reads as hugely negative there (cube_sanity reports it). Score-P
 * measures every visit and never writes such a row; hprof samples
 * functions. On a (call path, location) without a measured call, max_time
 * becomes the path's inclusive time there: the longest one visit can
 * have been, exact where it was visited once (the program's root, main, a
 * thread's start routine). min_time stays 0 there (no shortest call is
 * known; cubelib reads a MINDOUBLE row of zeros as +DBL_MAX, harmless).
 */
#ifndef HPROF_TIME_BOUNDS_H
#define HPROF_TIME_BOUNDS_H

#include "report/profile/defs.h"

/* Sets max_time where it is 0 to the inclusive time, for every thread, in
 * one rank's values: [cnode][thread][metric] of ncnodes call paths of d
 * (parents precede their children), nthreads threads and nmetrics local
 * metrics (metrics.h). 0, or -1 out of memory (nothing changed). */
int time_bounds_fill_max(double *values, int ncnodes, int nthreads, int nmetrics, const defs *d);

#endif
