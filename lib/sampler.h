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
 * MPI_Finalize. The last interval, from the last counted sample to the end
 * of the window, goes to the call path that called MPI_Finalize.
 */
#ifndef HPROF_SAMPLER_H
#define HPROF_SAMPLER_H

#include <signal.h>
#include <stdint.h>
#include <time.h>

#include "lib/sample_pace.h"

#define SAMPLER_HIST_BUCKETS 40   /* effective interval / nominal, in steps of 1/8 up to 5x */
#define SAMPLER_HANDLER_BUCKETS 256 /* time in the handler, in steps of SAMPLER_HANDLER_STEP_NS */
#define SAMPLER_HANDLER_STEP_NS 100

struct hprof_thread;

typedef struct hprof_sampling {
    volatile int on;             /* the handler may record */
    int ended;                   /* the window is closed */
    int has_timer;
    timer_t timer;
    int signal;                  /* the signal the timer sends */
    uint64_t armed_ns;           /* when this thread's first timer started (wall clock) */
    uint64_t window_start_ns;
    uint64_t window_end_ns;      /* set when the window closes (wall clock) */
    uint64_t last_ns;            /* clock reading at the last counted sample (or window start) */
    uint64_t mpi_ns_since;       /* MPI time measured since then */
    uint32_t last_node;          /* node of the last counted sample */
    uint64_t counted, in_mpi, busy, failed, full;
    uint64_t handler_ns;         /* time spent in the handler for counted samples */
    uint64_t handler_max_ns;     /* the longest of them */
    uint32_t handler_hist[SAMPLER_HANDLER_BUCKETS + 1]; /* for the median; last bucket: longer */
    uint64_t hist[SAMPLER_HIST_BUCKETS + 1];  /* last bucket: longer */
    sample_pace pace;
    uint64_t busy_cpu_ns;
    uint32_t ncpu, cpu[65536];            /* the timer's period under the handler's cost */
} hprof_sampling;

/* Installs the handler once per process; 0 if sampling can run. */
int  sampler_process_start(void);
/* Starts this thread's timer; the window starts at window_start_ns. */
void sampler_thread_start(struct hprof_thread *t, uint64_t window_start_ns);
/* Stops a thread's sampling and attributes its last interval to node
 * (CCT_NONE: the node of its last counted sample). now: end of its window. */
void sampler_thread_stop(struct hprof_thread *t, uint64_t now_ns, uint32_t node);

/* Called by the wrappers' bookkeeping: MPI time measured on this thread. */
static inline void sampler_add_mpi_time(hprof_sampling *s, uint64_t ns) { s->mpi_ns_since += ns; }

/* The most MPI time that may still be added at now_ns (wall clock) so
 * that the interval since the last counted sample stays at least 0. */
static inline uint64_t sampler_room_ns(const hprof_sampling *s, uint64_t now_ns)
{
    uint64_t elapsed = now_ns > s->last_ns ? now_ns - s->last_ns : 0;
    return elapsed > s->mpi_ns_since ? elapsed - s->mpi_ns_since : 0;
}

/* The clock the weights are measured on (wall, or the thread's CPU time). */
uint64_t sampler_clock_ns(void);

/* A reading of the thread's CPU clock, and in *cost that read's cost.
 * An MPI call timed on the CPU clock from a read at its entry to a read at
 * its end leaves out the first read's part before its reading and the
 * second's after it: about one read's cost, a system call (~0.8 us on a
 * VM, varying with the machine's load), that is hprof's and not the
 * program's computation. So each read is timed on the wall clock (two TSC
 * reads), and the call adds the mean of its two; a read that took more
 * than four times the process's calibrated cost (the thread descheduled
 * in it) counts that calibrated cost instead. */
uint64_t sampler_cpu_read(uint64_t *cost);

/* The calibrated cost: the median of batches of back-to-back reads on the
 * CPU clock, once a process; 0 before the first thread's start on it. */
uint64_t sampler_clock_read_cost_ns(void);

/* The median time in the handler per counted sample, in ns (a bucket's middle). */
uint64_t sampler_handler_median_ns(const hprof_sampling *s);

#endif
