#define _GNU_SOURCE
/*
 * clock.c - the monotonic clock every MPI call and every sample is timed
 * with, in nanoseconds.
 *
 * Two reads per MPI call make the clock a large part of a wrapper's cost:
 * clock_gettime (vDSO) takes ~20 ns here, rdtsc ~9 ns. Where the time
 * stamp counter runs at a constant rate through sleep states (constant_tsc
 * and nonstop_tsc), the clock is the TSC scaled to nanoseconds, calibrated
 * against CLOCK_MONOTONIC over MPI_Init (at least 1 ms) and anchored so
 * that it continues the clock_gettime values read before: every duration
 * hprof stores is a difference of values of this one clock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"

#define CALIBRATION_NS 1000000ull

hprof_tsc_clock hprof_tsc; /* use_tsc published last */
static uint64_t anchor_ns, anchor_tsc;

static uint64_t gettime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t hprof_gettime_ns(void)
{
    return gettime_ns();
}

uint64_t hprof_clock_anchor(void)
{
    anchor_tsc = hprof_read_tsc();
    anchor_ns = gettime_ns();
    return anchor_ns;
}

/* Does the TSC tick at one rate, also in sleep states? */
static int tsc_is_invariant(void)
{
#if defined(__x86_64__)
    const char *force = getenv("HPROFTEST_CLOCK");
    if (force && strcmp(force, "gettime") == 0)
        return 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return 0;
    char line[4096];
    int ok = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) == 0) {
            ok = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
            break;
        }
    }
    fclose(f);
    return ok;
#else
    return 0;
#endif
}

void hprof_clock_calibrate(void)
{
    if (hprof_tsc.use_tsc || !anchor_ns || !tsc_is_invariant())
        return;
    uint64_t ns, tsc;
    do {
        tsc = hprof_read_tsc();
        ns = gettime_ns();
    } while (ns - anchor_ns < CALIBRATION_NS);
    if (tsc <= anchor_tsc)
        return;
    hprof_tsc.ns_per_tick_q32 =
        (uint64_t)((((unsigned __int128)(ns - anchor_ns)) << 32) / (tsc - anchor_tsc));
    hprof_tsc.tsc_base = tsc;
    hprof_tsc.ns_base = ns;
    __atomic_store_n(&hprof_tsc.use_tsc, 1, __ATOMIC_RELEASE);
}
