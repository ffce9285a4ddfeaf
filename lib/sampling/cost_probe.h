/*
 * cost_probe.h - where the ns of an MPI call go inside hprof, in a bench
 * build only (make EXTRA_CFLAGS=-DHPROF_COST_PROBE BUILD=...): COST_MARK(i)
 * adds the time-stamp ticks since the previous mark to step i of the
 * calling thread; COST_START starts a call's chain (COST_RESTART after
 * the PMPI call, which is not hprof's). Each mark costs a TSC
 * read itself (~9 ns here), so the steps sum to more than the call's cost
 * without the probe: compare steps with each other, not with the total.
 * At exit the main thread's mean ticks per call and step go to stderr.
 * In normal builds the macros are empty.
 */
#ifndef HPROF_COST_PROBE_H
#define HPROF_COST_PROBE_H

#ifdef HPROF_COST_PROBE
#include <stdint.h>
#include <x86intrin.h>

#define COST_STEPS 12
extern __thread uint64_t hprof_cost_last, hprof_cost_ticks[COST_STEPS],
    hprof_cost_calls __attribute__((tls_model("initial-exec")));
#define COST_START() (hprof_cost_calls++, hprof_cost_last = __rdtsc())
#define COST_RESTART() (hprof_cost_last = __rdtsc())
#define COST_MARK(i)                                   \
    do {                                               \
        uint64_t now_ = __rdtsc();                     \
        hprof_cost_ticks[i] += now_ - hprof_cost_last; \
        hprof_cost_last = now_;                        \
    } while (0)
#else
#define COST_START() ((void)0)
#define COST_RESTART() ((void)0)
#define COST_MARK(i) ((void)0)
#endif

#endif
