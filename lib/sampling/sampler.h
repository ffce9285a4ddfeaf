/*
 * sampler.h - the sampling half of the hybrid method.
 *
 * A timer per measured thread delivers a signal (SIGPROF, or a real-time
 * signal when the program uses SIGPROF itself) at HPROF_SAMPLING_HZ on the
 * wall clock (CLOCK_MONOTONIC, so blocking outside MPI is seen) or on the
 * thread's CPU clock. The handler drops samples that land inside an MPI
 * wrapper (counted; their time is already measured MPI time) and weights
 * each counted sample by its effective interval: the time since the previous
 * counted sample minus the MPI time measured in between. So per thread,
 *
 *     sum of sample weights + measured MPI time = the measurement window,
 *
 * the window running from the entry of MPI_Init (for threads other than the
 * first: from the thread's first measured event) to the entry of
 * MPI_Finalize (its bookkeeping: window.h). The last interval, from the
 * last counted sample to the end of the window, goes to the call path that
 * called MPI_Finalize.
 */
#ifndef HPROF_SAMPLER_H
#define HPROF_SAMPLER_H

#include <stdint.h>

#include "lib/sampling/sampling.h"

struct hprof_thread;

/* Installs the handler once per process; 0 if sampling can run. */
int sampler_process_start(void);
/* Starts this thread's timer; the window starts at window_start_ns. */
void sampler_thread_start(struct hprof_thread *t, uint64_t window_start_ns);
/* Stops a thread's sampling and attributes its last interval to node
 * (CCT_NONE: the node of its last counted sample). now: end of its window,
 * on the thread's own sampling clock (window_clock_of; 0: not read, no
 * last interval). */
void sampler_thread_stop(struct hprof_thread *t, uint64_t now_ns, uint32_t node);

/* The calling thread's state, made if needed (not from a signal handler;
 * NULL if it could not be made); a thread new to a running measurement
 * (one that first shows up in an MPI call) starts its sampling now. */
struct hprof_thread *sampler_thread_enter(void);

/* A sample that lands inside a measured MPI call calls locate(t) on that
 * thread (measure.h's hprof_call_locate_in_flight: passed in at MPI_Init,
 * since the wrappers' first call enters the sampler). */
void sampler_set_in_mpi_hook(void (*locate)(struct hprof_thread *t));

/* Closes a thread's sampling window at now_ns (on its sampling clock, as
 * sampler_thread_stop's). Its
 * last interval goes to its last sampled call path, or, without one, to the
 * routine it was started with. */
void sampler_thread_close(struct hprof_thread *t, uint64_t now_ns);

/* The median time in the handler per counted sample, in ns (a bucket's middle). */
uint64_t sampler_handler_median_ns(const hprof_sampling *s);

#endif
