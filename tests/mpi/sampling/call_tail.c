/*
 * call_tail.c - computation alternating with MPI calls a few hundred ns
 * apart (tests/mpi/sampling_call_tail.sh): where hprof's work around a
 * call goes. Each rank runs comp() for COMP_US of the TSC, then CALLS
 * calls of MPI_Barrier(MPI_COMM_SELF), for SECONDS.
 *
 * The program times comp() and the block of calls itself, each by the TSC
 * read before and after it. A TSC read costs little against COMP_US, so
 * comp()'s time is its own; the block's time holds the calls whole: the
 * wrappers' entry, their bookkeeping after the end stamp, and a read's
 * part. Prints check_csv.py expectations, per rank:
 *
 *   comp   comp()'s inclusive time within TOL of the program's, and two
 *          sampling intervals (hprof's bookkeeping after the calls' end
 *          stamps, some 40 ns a call, went to the samples in comp():
 *          +8-10% at 2 us and 4 calls); above, also the time the thread
 *          was off the CPU in the block's share of the loop: hprof reads
 *          its clock in a call, not around its own work there, and a
 *          switch that lands in that work goes to the next sample (on 2
 *          cores beside 2 other busy processes, +3-11%)
 *   calls  the calls' MPI time at most the block's time: what hprof adds
 *          for its bookkeeping is what it took, not more
 *
 * and `rank R comp S calls S N off S` lines (seconds, calls, seconds off
 * the CPU during the loop).
 *
 * usage: call_tail [COMP_US CALLS SECONDS]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

#include "cpu_time.h" /* cpu_s, sink */

#define TOL 0.05

static uint64_t comp_ticks;

static __attribute__((noipa)) void comp(uint64_t ticks)
{
    uint64_t t0 = __rdtsc(), end = t0 + ticks;
    double x = sink;
    while (__rdtsc() < end)
        x = x * 1.0000001 + 1e-9;
    sink = x;
    comp_ticks += __rdtsc() - t0;
}

static double mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ns a TSC tick, against CLOCK_MONOTONIC over 50 ms */
static double ns_per_tick(void)
{
    double m0 = mono_s();
    uint64_t t0 = __rdtsc();
    struct timespec nap = { 0, 50000000 };
    while (nanosleep(&nap, &nap) != 0)
        ;
    return (mono_s() - m0) * 1e9 / (double)(__rdtsc() - t0);
}

int main(int argc, char **argv)
{
    double comp_us = argc > 1 ? atof(argv[1]) : 2, seconds = argc > 3 ? atof(argv[3]) : 2;
    int calls = argc > 2 ? atoi(argv[2]) : 4, rank, size;
    double tick_ns = ns_per_tick();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    uint64_t ticks = (uint64_t)(comp_us * 1e3 / tick_ns), block_ticks = 0;
    long rounds = 0;
    double start = mono_s(), cpu_start = cpu_s();
    while (mono_s() - start < seconds) {
        for (int r = 0; r < 100; r++, rounds++) {
            comp(ticks);
            uint64_t b0 = __rdtsc();
            for (int i = 0; i < calls; i++)
                MPI_Barrier(MPI_COMM_SELF);
            block_ticks += __rdtsc() - b0;
        }
    }
    double off_s = (mono_s() - start) - (cpu_s() - cpu_start);
    double comp_s = (double)comp_ticks * tick_ns * 1e-9, block_s = (double)block_ticks * tick_ns * 1e-9;
    double switched = off_s > 0 ? off_s * block_s / (block_s + comp_s) : 0;
    const char *hz_text = getenv("HPROF_SAMPLING_HZ");
    double hz = hz_text ? atof(hz_text) : 0, slack = hz > 0 ? 2.0 / hz : 0;
    for (int r = 0; r < size; r++) { /* in rank order: the launcher may splice lines */
        MPI_Barrier(MPI_COMM_WORLD);
        if (r != rank)
            continue;
        printf("rank %d comp %.6f calls %.6f %ld off %.6f\n", rank, comp_s, block_s, rounds * calls, off_s);
        printf("comp\tglob:*;comp\t%d\ttime@incl\t>=\t%.6f\n", rank, comp_s * (1 - TOL) - slack);
        printf("comp\tglob:*;comp\t%d\ttime@incl\t<=\t%.6f\n", rank, comp_s * (1 + TOL) + slack + switched);
        printf("calls\tglob:*;MPI_Barrier\t%d\tmpi_time@incl\t<=\t%.6f\n", rank, block_s);
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
