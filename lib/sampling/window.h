/*
 * window.h - a thread's sampling window: the bookkeeping behind
 *
 *     sum of sample weights + measured MPI time = the measurement window
 *
 * (sampler.h). The window runs from the entry of MPI_Init (for threads
 * other than the first: from the thread's first measured event) to the
 * entry of MPI_Finalize. Its intervals are taken on the sampling clock
 * (the wall clock, or the thread's CPU clock): a counted sample's weight
 * is the time since the previous counted sample less the MPI time
 * measured in between, which the wrappers' bookkeeping (measure.c) and
 * the polling runs (poll_run.c) add here. On the CPU clock an MPI call's
 * time is taken from reads of that clock, each of them timed
 * (window_cpu_read). Called on the thread itself only: in a wrapper or in
 * its signal handler, which never interleave; nothing allocates or locks.
 */
#ifndef HPROF_WINDOW_H
#define HPROF_WINDOW_H

#include <stdint.h>
#include <time.h>

typedef struct hprof_window {
    uint64_t start_ns;      /* the window's start (wall clock) */
    uint64_t end_ns;        /* set when the window closes (wall clock) */
    uint64_t last_ns;       /* the sampling clock at the last counted sample (or the window's start) */
    uint64_t mpi_ns_since;  /* MPI time measured since then */
    uint64_t clock_open_ns; /* the sampling clock at the window's start */
    uint64_t clock_span_ns; /* its length on the sampling clock once closed; 0: not known */
    clockid_t cpu_clock;    /* the thread's CPU clock, as any thread of the process reads it */
    int has_cpu_clock;      /* cpu_clock was got (the CPU clock only) */
} hprof_window;

/* Opens the window at start_ns (wall clock): the first interval begins
 * there, or on the CPU clock now. On its own thread. */
void window_open(hprof_window *w, uint64_t start_ns);

/* Closes it at now_ns, the window's own sampling clock (window_clock_of;
 * 0: not read, and its length stays unknown); the end is kept on the
 * wall clock. The last interval is still to take (window_take_interval). */
void window_close(hprof_window *w, uint64_t now_ns);

/* MPI time measured on this thread (the wrappers' bookkeeping, the polls). */
static inline void window_add_mpi_time(hprof_window *w, uint64_t ns)
{
    w->mpi_ns_since += ns;
}

/* The most MPI time that may still be added at now_ns (wall clock) so
 * that the interval since the last counted sample stays at least 0. */
static inline uint64_t window_room_ns(const hprof_window *w, uint64_t now_ns)
{
    uint64_t elapsed = now_ns > w->last_ns ? now_ns - w->last_ns : 0;
    return elapsed > w->mpi_ns_since ? elapsed - w->mpi_ns_since : 0;
}

/* window_room_ns less span ns, negative where that is more than the room:
 * without a branch, for the wrappers' straight path (measure.c). */
static inline int64_t window_room_less(const hprof_window *w, uint64_t now_ns, uint64_t span)
{
    return (int64_t)(now_ns - w->last_ns - w->mpi_ns_since - span);
}

/* The effective interval ending now (on the sampling clock): the time
 * since the last counted sample less the MPI time measured since;
 * the next interval begins now. */
static inline uint64_t window_take_interval(hprof_window *w, uint64_t now)
{
    uint64_t elapsed = now > w->last_ns ? now - w->last_ns : 0;
    uint64_t weight = elapsed > w->mpi_ns_since ? elapsed - w->mpi_ns_since : 0;
    w->last_ns = now;
    w->mpi_ns_since = 0;
    return weight;
}

/* The clock the weights are measured on (wall, or the thread's CPU time). */
uint64_t window_clock_ns(void);

/* The same clock of w's thread, read from any thread of the process (the
 * last intervals of threads that MPI_Finalize or a killed rank's writer
 * closes); 0 where it cannot be read (the thread has ended). Async-signal-
 * safe. */
uint64_t window_clock_of(const hprof_window *w);

/* A reading of the thread's CPU clock, and in *cost that read's cost.
 * An MPI call timed on the CPU clock from a read at its entry to a read at
 * its end leaves out the first read's part before its reading and the
 * second's after it: about one read's cost, a system call (~0.8 us on a
 * VM, varying with the machine's load), that is hprof's and not the
 * program's computation. So each read is timed on the wall clock (two TSC
 * reads), and the call adds the mean of its two; a read that took more
 * than four times the process's calibrated cost (the thread descheduled
 * in it) counts that calibrated cost instead. */
uint64_t window_cpu_read(uint64_t *cost);

/* Measures the calibrated cost once a process, before the first window's
 * first reading on the CPU clock (racing threads write alike). */
void window_calibrate_read_cost(void);

/* The calibrated cost: the median of batches of back-to-back reads on the
 * CPU clock; 0 before the first thread's start on it. */
uint64_t window_clock_read_cost_ns(void);

#endif
