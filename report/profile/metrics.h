/*
 * metrics.h - the metrics of an hprof profile: their CUBE definitions and
 * how a call-tree node's counters become metric values.
 */
#ifndef HPROF_METRICS_H
#define HPROF_METRICS_H

#include <stdint.h>

#include "report/cube/writer/cube_writer.h"
#include "report/profile/snapshot.h"

enum hprof_metric {
    M_TIME,
    M_MPI_TIME,
    M_COMP_TIME,
    M_VISITS,
    M_MIN_TIME,
    M_MAX_TIME,
    M_BYTES_SENT,
    M_BYTES_RECEIVED,
    M_BYTES_PUT,
    M_BYTES_GET,
    M_IO_BYTES_READ,
    M_IO_BYTES_WRITTEN,
    M_SAMPLES,
    M_UNWIND_FAILURES,
    M_CALLS_NOT_UNWOUND,
    M_FUNCTION_ENTRIES,
    M_EXACT_TIME, /* in the file when some rank measured functions exactly */
    M_POLLS_FAILED,
    M_POLLS_FAILED_TIME, /* in the file with HPROF_POLLS=split only */
    M_NOW,               /* in a snapshot's file only (some node holds a value) */
    M_COUNT
};

extern const cube_metric_def hprof_metric_defs[M_COUNT];

/* The fixed metric of that unique name (enum hprof_metric), -1 for another
 * (a PAPI event's): where it goes in a file's metric list. */
int metrics_fixed_index(const char *uniq_name);

/* Values of one cnode at one location, before and after folding in the
 * counters of a call-tree node (several raw nodes can fold into one cnode).
 * A function's entries seen by the thunk stack are a lower bound, so they
 * go to function_entries_seen, never to visits, which stays exact: the calls
 * of MPI functions, of functions measured exactly (lib/exact/), and the
 * counts of hprof's artificial nodes. */
void metrics_clear(double *values);
void metrics_add_counters(double *values, const uint64_t *counters, int is_function);
/* The value as stored in the file (metric: an index into metrics_defs()). */
double metrics_stored(const double *values, int metric);

/* Beyond the fixed metrics: one per PAPI event (HPROF_METRICS, handed over in the snapshot),
 * named by the event, described by PAPI. A rank's local values hold
 * metrics_nlocal() doubles per (cnode, thread): the fixed metrics, then
 * this rank's events by slot. The file's metric list is agreed on at the
 * merge: metrics_set_events(OR over ranks of metrics_local_events()) makes
 * it the fixed metrics (exact_time when some rank measured a function
 * exactly: the mask's bit 62; the unsuccessful polls' two when some rank
 * has HPROF_POLLS=split: its top bit), then every event some rank
 * counted, in HPROF_METRICS order (0 on ranks that did not count it). Until
 * then it is this rank's fixed ones. */
/* The snapshot's events (snapshot.h; kept, not copied): local_profile_build
 * sets them. Until then no event is counted. */
void metrics_use_events(const snapshot_event *events, int nevents, int counted);
int metrics_nlocal(void);
void metrics_add_events(double *values, const int64_t *events);
uint64_t metrics_local_events(void);
void metrics_set_events(uint64_t mask);
int metrics_count(void);
const cube_metric_def *metrics_defs(void);

#endif
