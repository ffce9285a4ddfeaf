/*
 * clock.h - the monotonic clock every MPI call and every sample is timed
 * with, in nanoseconds (lib/core/clock.c): the TSC once calibrated,
 * CLOCK_MONOTONIC before. Every duration hprof stores is a difference of
 * values of this one clock. Reading it allocates nothing, takes no lock
 * and is async-signal-safe.
 */
#ifndef HPROF_CLOCK_H
#define HPROF_CLOCK_H

#include <stdint.h>

uint64_t hprof_now_ns(void);

/* MPI_Init's entry: hprof_now_ns(), and the starting point of the TSC's
 * calibration, which hprof_clock_calibrate() (at the start of the
 * measurement) completes. */
uint64_t hprof_clock_anchor(void);
void hprof_clock_calibrate(void);

#endif
