/*
 * papi_events.h - HPROF_METRICS: PAPI events (presets, native events, Software
 * Defined Events sde:::LIBRARY::COUNTER) counted per thread and attributed
 * per call path by the hybrid method, like time:
 *
 *   - the delta of every event across a measured MPI call goes to that
 *     call's node (exact): read at hprof_call_begin, read again at the end;
 *   - at each counted sample, the delta since the previous counted sample
 *     minus what the MPI calls in between consumed goes to the sampled node
 *     (the effective interval of the counter);
 *   - the last interval (last counted sample to MPI_Finalize) goes to the
 *     node that called MPI_Finalize.
 *
 * So per thread the values summed over all call paths telescope to the
 * counter's total over the measurement window (from the event set's start in
 * MPI_Init, or the thread's first measured MPI call, to MPI_Finalize).
 *
 * One event set per measured thread, created and started outside any signal
 * handler; the hot paths only call PAPI_read into preallocated arrays.
 * Reading in the signal handler: PAPI_read is what PAPI's own overflow
 * handlers call, and for the SDE component and perf_event it reads without
 * allocating, but it may take a PAPI/SDE-internal lock. A sample whose
 * interrupted call path has a frame inside libpapi or libsde is therefore
 * not read (its counts stay in the interval of the next counted sample), so
 * the handler never waits on a lock its own thread holds. See README.md.
 *
 * SDE counters are process-wide (a library's variables, the same from any
 * thread), and PAPI 7 does not count one SDE counter right in several
 * running event sets (starting a set on another thread shifts the values
 * the first one reads). So SDE events are in the set of the thread that
 * called MPI_Init only: per-rank totals stay exact, and increments made by
 * other threads show up on that thread's call paths. Other events count
 * per thread. Arrays below are indexed by position in the thread's set.
 *
 * Built without PAPI (no papi.h at build time), everything here is a no-op
 * and HPROF_METRICS gets a one-line message.
 */
#ifndef HPROF_PAPI_EVENTS_H
#define HPROF_PAPI_EVENTS_H

#include <stdint.h>

#include "core/cct.h"

typedef struct hprof_papi_thread {
    int eventset;                           /* the thread's PAPI event set */
    int on;                                 /* set running: reads are valid */
    int call_ok;                            /* the read at the current MPI call's entry worked */
    int nread;                              /* events in the thread's set */
    unsigned char slot[HPROF_MAX_EVENTS];   /* set position -> slot in the nodes' events */
    long long call_start[HPROF_MAX_EVENTS]; /* read at the entry of the current measured call */
    long long last[HPROF_MAX_EVENTS];       /* read at the last counted sample (or the start) */
    long long mpi_since[HPROF_MAX_EVENTS];  /* consumed inside MPI calls since then */
    uint64_t read_failures;                 /* PAPI_read errors (their deltas go to the next good read) */
    uint64_t skipped; /* samples inside libpapi/libsde, or unwound to nothing, not read */
} hprof_papi_thread;

/* Events this rank counts (0: PAPI off or nothing to count). */
extern int hprof_papi_nevents __attribute__((visibility("hidden")));

/* Parses HPROF_METRICS, starts PAPI, keeps the events that can be counted
 * together (one line names them and the ones that cannot). Once, from the
 * MPI_Init wrapper, after hprof_config_load(). */
void hprof_papi_process_start(void);

/* The calling thread's event set: created, started, baseline read. */
void hprof_papi_thread_start(hprof_papi_thread *p);

/* Around a measured MPI call (inside the wrapper, depth > 0). events: the
 * call's node counts, or NULL when the call has no node. */
void hprof_papi_call_begin(hprof_papi_thread *p);
void hprof_papi_call_end(hprof_papi_thread *p, int64_t *events);

/* From the signal handler, at a counted sample on node of tree. */
void hprof_papi_sample(hprof_papi_thread *p, const cct *tree, uint32_t node);

/* The end of the calling thread's window: the last interval goes to events
 * (NULL: dropped); the set stops. */
void hprof_papi_thread_stop(hprof_papi_thread *p, int64_t *events);

/* For the snapshot handed to report/ (report/profile/snapshot.h), after
 * the events were chosen at MPI_Init: the number of events this rank
 * counts (the nodes' event arrays hold that many), and up to max of the
 * requested events into out, in HPROF_METRICS order, returning how many
 * were requested (at most 64; the strings stay valid to the end of the
 * process). Built without PAPI, or with HPROF_METRICS unset, none. */
struct snapshot_event;
int hprof_events_counted(void);
int hprof_event_defs(struct snapshot_event *out, int max);

#endif
