/*
 * cpu_time.h - the thread's CPU clock and a computation that runs for a
 * given amount of it (a loaded machine stretches it, not the CPU time),
 * for the CPU-clock tests' programs (cpu_spin.c, cpu_last.c).
 */
#ifndef HPROF_TEST_CPU_TIME_H
#define HPROF_TEST_CPU_TIME_H

#include <time.h>

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static volatile double sink;

static __attribute__((noinline, unused)) void spin(double seconds)
{
    double end = cpu_s() + seconds;
    while (cpu_s() < end)
        for (int i = 0; i < 2000; i++)
            sink += i * 0.5;
}

#endif
