/*
 * value_combine.h - two of a location's values at one cnode of the merged
 * profile: only where call sites merged two of a rank's cnodes into one
 * (the full merge, offline_merge.c, and the reduced one, reduced_fold.c).
 * Minima and maxima store 0 where never visited (cube_writer.h); aggr is
 * the metric's CUBE_AGGR_ (cube_model.h).
 */
#ifndef HPROF_VALUE_COMBINE_H
#define HPROF_VALUE_COMBINE_H

#include "report/cube/reader/cube_model.h"

static inline double value_combine(int aggr, double a, double b)
{
    if (aggr == CUBE_AGGR_MIN)
        return a == 0 ? b : b == 0 ? a : (a < b ? a : b);
    if (aggr == CUBE_AGGR_MAX)
        return a > b ? a : b;
    return a + b;
}

#endif
