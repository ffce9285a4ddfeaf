/*
 * exact_auto.h - HPROF_SELECT=auto: hprof chooses the functions itself
 * (issue 29, 3c). The run starts sampled; after a warm-up
 * (HPROF_AUTO_WARMUP seconds, default 1) each evaluation (exact.c's tick)
 * takes on trial the functions seen on a call path to MPI and those with
 * the most sampled time of their own (at least AUTO_MIN_SHARE of the
 * samples, the AUTO_TOP largest), patched in from then. From the next
 * evaluation on (20 ms after one that took functions on trial: exact.c),
 * each taken function's visit rate is measured (its exact
 * visits, every thread, per second since the last evaluation), and its
 * projected cost, rate x the cost of a visit (exact_calib.h, measured on
 * this machine at the first evaluation) / the threads, is held against
 * the budget HPROF_OVERHEAD (percent of the run, default 1): a function
 * whose cost alone breaks the budget is dropped (a small function called
 * millions of times a second: Mussler's heuristic), then the costliest
 * until the sum fits. A dropped function is patched out and never taken
 * again. A function on a thread's stack since before its patch could go
 * in (main, the functions above the MPI_Init call, a thread's start
 * routine: the caller pins them) is never taken: its one long visit would
 * not count, only the calls after the patch, a wasted slot.
 * Pure: the caller keeps the state and patches.
 */
#ifndef HPROF_EXACT_AUTO_H
#define HPROF_EXACT_AUTO_H

#include <stdint.h>

#define AUTO_TOP 16         /* functions taken for their sampled time, at most */
#define AUTO_MIN_SHARE 0.01 /* ...each with at least this share of the samples */

enum {
    AUTO_NEW,
    AUTO_TAKEN,
    AUTO_DROPPED
};
enum {
    AUTO_WHY_MPI = 1,
    AUTO_WHY_SAMPLES = 2
};

typedef struct auto_fn {
    /* what the trees show now (exact_seen.h) */
    int on_mpi;
    uint64_t samples, visits;
    /* kept between evaluations */
    unsigned char state, why;
    unsigned char pinned; /* on a stack since before it could be patched (main, a thread's start routine:
                           * its visits would count from the patch, none before): never taken */
    uint64_t last_visits; /* visits at the last evaluation */
    double rate;          /* visits a second over the last interval (taken, or when dropped) */
    double cost; /* rate x cost a visit / threads: a share of the run (when dropped: what broke it) */
} auto_fn;

typedef struct auto_params {
    double budget;     /* a share of the run: HPROF_OVERHEAD / 100 */
    double visit_ns;   /* the cost of a visit */
    double interval_s; /* since the last evaluation */
    int threads;       /* the locations whose calls the rates add up */
    uint64_t total_samples;
} auto_params;

/* One evaluation after the warm-up: rates measured, drops, new functions
 * taken. chosen[i]: fn i patched in from now. Returns the projected cost
 * (a share of the run) of those kept. */
double exact_auto_decide(auto_fn *v, int n, const auto_params *p, unsigned char *chosen);

/* HPROF_OVERHEAD as a share (one line for a bad value: 0.01), and
 * HPROF_AUTO_WARMUP in ns (one line for a bad value: 1 s). */
double exact_auto_budget(void);
uint64_t exact_auto_warmup_ns(void);

#endif
