/*
 * event_defs.h - what the merge reads of the runtime's PAPI events
 * (HPROF_METRICS): the events requested, in order, and where this rank
 * keeps the counts of those it counts.
 *
 * Declared here, by the layer that needs it, and implemented by the
 * runtime (lib/papi_events.c), as locations.h is: nothing under report/
 * includes a runtime header. Read at finalize or by the fallback writer,
 * after the events were chosen at MPI_Init. Built without PAPI, or with
 * HPROF_METRICS unset, no event is counted.
 */
#ifndef HPROF_EVENT_DEFS_H
#define HPROF_EVENT_DEFS_H

typedef struct event_def {
    const char *name;        /* as written in HPROF_METRICS */
    const char *units;       /* PAPI's, "#" when it has none */
    const char *description; /* PAPI's, "PAPI event" when it has none */
    int slot;                /* index into the nodes' event counts on this
                              * rank; -1: not counted here */
} event_def;

/* The number of events this rank counts: the nodes' event arrays hold
 * that many counts. */
int hprof_events_counted(void);

/* Up to max of the requested events into out, in HPROF_METRICS order;
 * returns how many were requested (at most 64). The strings stay valid to
 * the end of the process. */
int hprof_event_defs(event_def *out, int max);

#endif
