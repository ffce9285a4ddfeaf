/*
 * cost_probe.c - the per-step tick sums of cost_probe.h and their report
 * at exit (bench builds with -DHPROF_COST_PROBE only).
 */
#include "lib/sampling/cost_probe.h"

#ifdef HPROF_COST_PROBE
#include <stdio.h>

__thread uint64_t hprof_cost_last, hprof_cost_ticks[COST_STEPS],
    hprof_cost_calls __attribute__((tls_model("initial-exec")));

__attribute__((destructor)) static void cost_report(void)
{
    if (!hprof_cost_calls)
        return;
    fprintf(stderr,
            "hprof-cost-probe: %llu calls, ticks per call by step:", (unsigned long long)hprof_cost_calls);
    for (int i = 0; i < COST_STEPS; i++)
        fprintf(stderr, " %d:%.1f", i, (double)hprof_cost_ticks[i] / (double)hprof_cost_calls);
    fprintf(stderr, "\n");
}
#endif
