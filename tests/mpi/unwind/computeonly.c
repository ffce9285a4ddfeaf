/*
 * computeonly.c - MPI_Init, then only computation (no MPI call to learn
 * recipes at) in a few functions for about a second of its own CPU time
 * (on a busy machine it takes longer, with as many samples), then
 * MPI_Finalize.
 * Prints `elapsed S`: its own CLOCK_MONOTONIC time from just before
 * MPI_Init to just before MPI_Finalize (hprof's measurement window).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static volatile double sink;

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

NOINLINE static void burn(double seconds)
{
    double end = clock_s(CLOCK_THREAD_CPUTIME_ID) + seconds, x = 1.0;
    while (clock_s(CLOCK_THREAD_CPUTIME_ID) < end)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

NOINLINE static void phase_a(double s)
{
    burn(s);
    __asm__ volatile("" ::: "memory");
}
NOINLINE static void phase_b(double s)
{
    phase_a(s);
    __asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    double t0 = now();
    MPI_Init(&argc, &argv);
    phase_a(seconds / 2);
    phase_b(seconds / 2);
    double elapsed = now() - t0;
    MPI_Finalize();
    printf("elapsed %.6f\n", elapsed);
    return 0;
}
