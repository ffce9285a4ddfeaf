/*
 * metrics.h - the metrics of an hprof profile: their CUBE definitions and
 * how a call-tree node's counters become metric values.
 */
#ifndef HPROF_METRICS_H
#define HPROF_METRICS_H

#include <stdint.h>

#include "cube_writer.h"

enum hprof_metric {
    M_TIME, M_MPI_TIME, M_COMP_TIME,
    M_VISITS, M_MIN_TIME, M_MAX_TIME,
    M_BYTES_SENT, M_BYTES_RECEIVED, M_BYTES_PUT, M_BYTES_GET,
    M_IO_BYTES_READ, M_IO_BYTES_WRITTEN,
    M_SAMPLES, M_UNWIND_FAILURES, M_CALLS_NOT_UNWOUND,
    M_COUNT
};

extern const cube_metric_def hprof_metric_defs[M_COUNT];

/* Values of one cnode at one location, before and after folding in the
 * counters of a call-tree node (several raw nodes can fold into one cnode). */
void metrics_clear(double *values);
void metrics_add_counters(double *values, const uint64_t *counters);
/* The value as stored in the file. */
double metrics_stored(const double *values, int metric);

#endif
