/*
 * floor_loop.h - the floor of a measured call (bench/exact_cost.c,
 * bench/exact_ab.c): calls from one loop, the program itself reading the
 * time stamp counter before and after each; two clock reads a call and no
 * tool, the least any tool that times each call costs.
 */
#ifndef BENCH_FLOOR_LOOP_H
#define BENCH_FLOOR_LOOP_H

#include <x86intrin.h>

/* n calls of fn, each timed; the ticks go to *sink, so that none of it is
 * optimized away */
static inline void floor_loop(long n, long (*fn)(long), volatile long *sink)
{
    unsigned long long ticks = 0;
    for (long i = 0; i < n; i++) {
        unsigned long long t0 = __rdtsc();
        *sink += fn(i);
        ticks += __rdtsc() - t0;
    }
    *sink += (long)ticks;
}

#endif
