#include "metrics.h"

#include <math.h>

#include "cct.h"

/* Unique names follow Score-P where the concept exists (shared/design.md). */
const cube_metric_def hprof_metric_defs[M_COUNT] = {
    [M_TIME] = { "time", "Time", "DOUBLE", "sec",
                 "Wall time: measured MPI time plus sampled computation time", 0, -1 },
    [M_MPI_TIME] = { "mpi_time", "MPI", "DOUBLE", "sec",
                     "Time inside MPI calls, measured directly by the wrappers", 0, M_TIME },
    [M_COMP_TIME] = { "comp_time", "Computation", "DOUBLE", "sec",
                      "Time outside MPI, from samples weighted by their effective interval", 0, M_TIME },
    [M_VISITS] = { "visits", "Visits", "UINT64", "occ", "Number of calls", 0, -1 },
    [M_MIN_TIME] = { "min_time", "Minimum Inclusive Time", "MINDOUBLE", "sec",
                     "Shortest single MPI call", 0, -1 },
    [M_MAX_TIME] = { "max_time", "Maximum Inclusive Time", "MAXDOUBLE", "sec",
                     "Longest single MPI call", 0, -1 },
    [M_BYTES_SENT] = { "bytes_sent", "bytes_sent", "UINT64", "bytes", "Bytes sent", 0, -1 },
    [M_BYTES_RECEIVED] = { "bytes_received", "bytes_received", "UINT64", "bytes", "Bytes received", 0, -1 },
    [M_BYTES_PUT] = { "bytes_put", "bytes_put", "UINT64", "bytes",
                      "Bytes sent in one-sided communication", 0, -1 },
    [M_BYTES_GET] = { "bytes_get", "bytes_get", "UINT64", "bytes",
                      "Bytes received in one-sided communication", 0, -1 },
    [M_IO_BYTES_READ] = { "io_bytes_read", "io_bytes_read", "UINT64", "bytes", "MPI-IO bytes read", 0, -1 },
    [M_IO_BYTES_WRITTEN] = { "io_bytes_written", "io_bytes_written", "UINT64", "bytes",
                             "MPI-IO bytes written", 0, -1 },
    [M_SAMPLES] = { "samples", "Samples", "UINT64", "occ", "Samples counted outside MPI", 0, -1 },
    [M_UNWIND_FAILURES] = { "unwind_failures", "Failed unwinds", "UINT64", "occ",
                            "MPI calls and samples whose call path could not be unwound", 0, -1 },
    [M_CALLS_NOT_UNWOUND] = { "calls_not_unwound", "Calls not unwound", "UINT64", "occ",
                              "MPI calls timed and counted without a call path (HPROF_NOUNWIND)", 0, -1 },
};

void metrics_clear(double *v)
{
    for (int m = 0; m < M_COUNT; m++)
        v[m] = 0;
    v[M_MIN_TIME] = INFINITY;
}

void metrics_add_counters(double *v, const uint64_t *c)
{
    double mpi = (double)c[CCT_MPI_TIME_NS] * 1e-9, comp = (double)c[CCT_COMP_TIME_NS] * 1e-9;
    v[M_TIME] += mpi + comp;
    v[M_MPI_TIME] += mpi;
    v[M_COMP_TIME] += comp;
    v[M_VISITS] += (double)c[CCT_VISITS];
    if (c[CCT_VISITS] && (double)c[CCT_MIN_NS] * 1e-9 < v[M_MIN_TIME])
        v[M_MIN_TIME] = (double)c[CCT_MIN_NS] * 1e-9;
    if ((double)c[CCT_MAX_NS] * 1e-9 > v[M_MAX_TIME])
        v[M_MAX_TIME] = (double)c[CCT_MAX_NS] * 1e-9;
    for (int i = 0; i < 6; i++)
        v[M_BYTES_SENT + i] += (double)c[CCT_BYTES_SENT + i];
    v[M_SAMPLES] += (double)c[CCT_SAMPLES];
    v[M_UNWIND_FAILURES] += (double)c[CCT_UNWIND_FAILURES];
    v[M_CALLS_NOT_UNWOUND] += (double)c[CCT_CALLS_NOT_UNWOUND];
}

double metrics_stored(const double *v, int m)
{
    /* A node never visited has no shortest call: store 0, as Score-P does. */
    if (m == M_MIN_TIME && isinf(v[m]))
        return 0;
    return v[m];
}
