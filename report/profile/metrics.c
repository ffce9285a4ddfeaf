#include "report/profile/metrics.h"

#include <math.h>
#include <string.h>

#include "core/cct.h"
#include "core/config.h"

/* Unique names follow Score-P where the concept exists (shared/design.md). */
const cube_metric_def hprof_metric_defs[M_COUNT] = {
    [M_TIME] = { "time", "Time", "DOUBLE", "sec",
                 "Wall time: measured MPI time plus sampled computation time", 0, -1 },
    /* Top-level, not children of time: Extra-P models top-level metrics only. */
    [M_MPI_TIME] = { "mpi_time", "MPI", "DOUBLE", "sec",
                     "Time inside MPI calls, measured directly by the wrappers", 0, -1 },
    [M_COMP_TIME] = { "comp_time", "Computation", "DOUBLE", "sec",
                      "Time outside MPI, from samples weighted by their effective interval", 0, -1 },
    [M_VISITS] = { "visits", "Visits", "UINT64", "occ", "Number of calls of MPI functions (exact)", 0, -1 },
    [M_MIN_TIME] = { "min_time", "Minimum Inclusive Time", "MINDOUBLE", "sec", "Shortest single MPI call", 0,
                     -1 },
    [M_MAX_TIME] = { "max_time", "Maximum Inclusive Time", "MAXDOUBLE", "sec", "Longest single MPI call", 0,
                     -1 },
    [M_BYTES_SENT] = { "bytes_sent", "bytes_sent", "UINT64", "bytes", "Bytes sent", 0, -1 },
    [M_BYTES_RECEIVED] = { "bytes_received", "bytes_received", "UINT64", "bytes", "Bytes received", 0, -1 },
    [M_BYTES_PUT] = { "bytes_put", "bytes_put", "UINT64", "bytes", "Bytes sent in one-sided communication", 0,
                      -1 },
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
    [M_FUNCTION_ENTRIES] = { "function_entries_seen", "Function entries seen", "UINT64", "occ",
                             "Entries of a function seen by the thunk stack or a sample: a lower "
                             "bound of its calls, not a count",
                             0, -1 },
    [M_EXACT_TIME] = { "exact_time", "Exact time", "DOUBLE", "sec",
                       "Time in functions measured exactly (HPROF_SELECT, HPROF_FILTER), from their entry to "
                       "their return; a function's exclusive value leaves out the functions measured exactly "
                       "that it called",
                       0, -1 },
    [M_POLLS_FAILED] = { "polls_unsuccessful", "Unsuccessful polls", "UINT64", "occ",
                         "Calls of MPI_Test*, MPI_Iprobe and MPI_Improbe that completed nothing "
                         "(HPROF_POLLS=split; part of visits)",
                         0, -1 },
    [M_POLLS_FAILED_TIME] = { "polls_unsuccessful_time", "Unsuccessful polls' time", "DOUBLE", "sec",
                              "Time in polls that completed nothing (HPROF_POLLS=split; part of mpi_time)", 0,
                              -1 },
    [M_NOW] = { "now", "Now", "DOUBLE", "sec",
                "A snapshot of a running job (hprof-snapshot): where each thread was at that moment, the "
                "MPI call under way with its time in it so far, or the place of its last sample with the "
                "time since (hprof-view --now)",
                0, -1 },
};

int metrics_fixed_index(const char *uniq_name)
{
    for (int m = 0; uniq_name && m < M_COUNT; m++)
        if (strcmp(hprof_metric_defs[m].uniq_name, uniq_name) == 0)
            return m;
    return -1;
}

/* The fixed metrics that go into the file: exact_time only where some
 * rank measured a function exactly, the unsuccessful polls' two only with
 * HPROF_POLLS=split (on some rank: agreed with the events, in the mask's
 * bits 62 and 63); events follow them. */
#define MASK_EXACT (1ull << 62)
#define MASK_POLLS_SPLIT (1ull << 63)
static int polls_split = -1; /* -1: not agreed yet, this rank's setting */
static int exact_any = -1;   /* -1: not agreed yet, this rank's counts */
static int exact_here;       /* a node of this rank counted an exact call */
static int now_here; /* a node of this rank holds a snapshot's place (never in MPI_Finalize's merge) */

/* file[i]: the fixed metric at file position i; the count. */
static int fixed_in_file_list(int *file)
{
    int split = polls_split >= 0 ? polls_split : hprof_config.polls == HPROF_POLLS_SPLIT;
    int exact = exact_any >= 0 ? exact_any : exact_here;
    int n = 0;
    for (int m = 0; m < M_COUNT; m++)
        if ((m != M_EXACT_TIME || exact) && ((m != M_POLLS_FAILED && m != M_POLLS_FAILED_TIME) || split) &&
            (m != M_NOW || now_here))
            file[n++] = m;
    return n;
}

static int fixed_in_file(void)
{
    int file[M_COUNT];
    return fixed_in_file_list(file);
}

void metrics_clear(double *v)
{
    for (int m = 0; m < metrics_nlocal(); m++)
        v[m] = 0;
    v[M_MIN_TIME] = INFINITY;
}

void metrics_add_counters(double *v, const uint64_t *c, int is_function)
{
    double mpi = (double)c[CCT_MPI_TIME_NS] * 1e-9, comp = (double)c[CCT_COMP_TIME_NS] * 1e-9;
    v[M_TIME] += mpi + comp;
    v[M_MPI_TIME] += mpi;
    v[M_COMP_TIME] += comp;
    v[is_function ? M_FUNCTION_ENTRIES : M_VISITS] += (double)c[CCT_VISITS];
    v[M_VISITS] += (double)c[CCT_EXACT_VISITS];
    v[M_EXACT_TIME] += (double)c[CCT_EXACT_SELF_NS] * 1e-9;
    exact_here |= c[CCT_EXACT_VISITS] != 0;
    /* A node entered but never timed keeps the "no call yet" sentinel. */
    if (c[CCT_MIN_NS] != UINT64_MAX && (double)c[CCT_MIN_NS] * 1e-9 < v[M_MIN_TIME])
        v[M_MIN_TIME] = (double)c[CCT_MIN_NS] * 1e-9;
    if ((double)c[CCT_MAX_NS] * 1e-9 > v[M_MAX_TIME])
        v[M_MAX_TIME] = (double)c[CCT_MAX_NS] * 1e-9;
    for (int i = 0; i < 6; i++)
        v[M_BYTES_SENT + i] += (double)c[CCT_BYTES_SENT + i];
    v[M_SAMPLES] += (double)c[CCT_SAMPLES];
    v[M_UNWIND_FAILURES] += (double)c[CCT_UNWIND_FAILURES];
    v[M_CALLS_NOT_UNWOUND] += (double)c[CCT_CALLS_NOT_UNWOUND];
    v[M_POLLS_FAILED] += (double)c[CCT_POLLS_FAILED];
    v[M_POLLS_FAILED_TIME] += (double)c[CCT_POLLS_FAILED_NS] * 1e-9;
    v[M_NOW] += (double)c[CCT_NOW_NS] * 1e-9;
    now_here |= c[CCT_NOW_NS] != 0;
}

/* ---- PAPI events ---- */

#define MAX_EVENT_METRICS 62 /* bits of the agreed mask; the top two are MASK_EXACT, MASK_POLLS_SPLIT */
static cube_metric_def all_defs[M_COUNT + MAX_EVENT_METRICS];
static int event_slot[MAX_EVENT_METRICS]; /* file metric fixed + k -> local slot, -1: none */
static int nmetrics = -1;                 /* -1: the fixed ones, not yet set */

static const snapshot_event *events; /* the snapshot's (snapshot.h) */
static int nevents, events_counted;

void metrics_use_events(const snapshot_event *ev, int n, int counted)
{
    events = ev;
    nevents = ev && n > 0 ? (n < MAX_EVENT_METRICS ? n : MAX_EVENT_METRICS) : 0;
    events_counted = counted > 0 ? counted : 0;
}

int metrics_nlocal(void)
{
    return M_COUNT + events_counted;
}

void metrics_add_events(double *v, const int64_t *ev)
{
    for (int i = 0; i < events_counted; i++)
        v[M_COUNT + i] += (double)ev[i];
}

uint64_t metrics_local_events(void)
{
    const snapshot_event *defs = events;
    uint64_t mask = 0;
    for (int j = 0; j < nevents; j++)
        if (defs[j].slot >= 0 && defs[j].slot < events_counted)
            mask |= 1ull << j;
    if (hprof_config.polls == HPROF_POLLS_SPLIT)
        mask |= MASK_POLLS_SPLIT;
    if (exact_here)
        mask |= MASK_EXACT;
    return mask;
}

void metrics_set_events(uint64_t mask)
{
    const snapshot_event *defs = events;
    polls_split = (mask & MASK_POLLS_SPLIT) != 0;
    exact_any = (mask & MASK_EXACT) != 0;
    int fixed = fixed_in_file();
    nmetrics = fixed;
    for (int j = 0; j < nevents; j++) {
        if (!(mask & (1ull << j)))
            continue;
        all_defs[nmetrics] = (cube_metric_def){
            defs[j].name, defs[j].name, "INT64", defs[j].units, defs[j].description, 0, -1
        };
        event_slot[nmetrics - fixed] = defs[j].slot;
        nmetrics++;
    }
}

int metrics_count(void)
{
    return nmetrics < 0 ? fixed_in_file() : nmetrics;
}

const cube_metric_def *metrics_defs(void)
{
    int file[M_COUNT], n = fixed_in_file_list(file);
    for (int m = 0; m < n; m++)
        all_defs[m] = hprof_metric_defs[file[m]];
    return all_defs;
}

double metrics_stored(const double *v, int m)
{
    int file[M_COUNT], fixed = fixed_in_file_list(file);
    if (m >= fixed) {
        int slot = m < metrics_count() ? event_slot[m - fixed] : -1;
        return slot >= 0 && slot < events_counted ? v[M_COUNT + slot] : 0;
    }
    m = file[m];
    /* A node never visited has no shortest call: store 0, as Score-P does. */
    if (m == M_MIN_TIME && isinf(v[m]))
        return 0;
    return v[m];
}
