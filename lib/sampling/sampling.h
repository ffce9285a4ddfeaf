/*
 * sampling.h - a thread's sampling record, kept in its state (thread.h):
 * its timer, its window (window.h), its pace and what its samples were.
 * Written by the sampler (sampler.h) and its signal handler.
 */
#ifndef HPROF_SAMPLING_H
#define HPROF_SAMPLING_H

#include <signal.h>
#include <stdint.h>
#include <time.h>

#include "lib/sampling/sample_pace.h"
#include "lib/sampling/window.h"

#define SAMPLER_HIST_BUCKETS 40     /* effective interval / nominal, in steps of 1/8 up to 5x */
#define SAMPLER_HANDLER_BUCKETS 256 /* time in the handler, in steps of SAMPLER_HANDLER_STEP_NS */
#define SAMPLER_HANDLER_STEP_NS 100

typedef struct hprof_sampling {
    volatile int on; /* the handler may record */
    int ended;       /* the window is closed */
    int has_timer;
    timer_t timer;
    int signal;             /* the signal the timer sends */
    uint64_t armed_ns;      /* when this thread's first timer started (wall clock) */
    hprof_window window;    /* window.h */
    uint64_t stop_clock_ns; /* its sampling clock as a dying rank stopped (abandon.c); 0: not read */
    uint32_t last_node;     /* node of the last counted sample */
    uint64_t counted, in_mpi, busy, failed, full;
    uint64_t handler_ns;                                /* time spent in the handler for counted samples */
    uint64_t handler_max_ns;                            /* the longest of them */
    uint32_t handler_hist[SAMPLER_HANDLER_BUCKETS + 1]; /* for the median; last bucket: longer */
    uint64_t hist[SAMPLER_HIST_BUCKETS + 1];            /* last bucket: longer */
    sample_pace pace;
    uint64_t busy_cpu_ns;
    uint32_t ncpu, cpu[65536]; /* the timer's period under the handler's cost */
} hprof_sampling;

#endif
