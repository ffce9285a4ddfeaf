/*
 * aliasing.c - a loop whose period is the sampling period: each rank runs
 * CYCLES cycles of exactly PERIOD_US, the first 3/4 of each in func_long
 * and the last 1/4 in func_short with an MPI call at its end. The cycles
 * are laid on the clock (cycle k ends at start + (k + 1) * PERIOD_US), so
 * their period stays exact whatever hprof's calls and the machine's load
 * take. A sampling timer of that same fixed period lands at one point of
 * the cycle every time and gives one of the two functions all the time.
 * Prints `truth RANK LONG SHORT`: the wall time spent in each, in seconds.
 *
 * usage: aliasing [PERIOD_US] [CYCLES]    (defaults 1000 and 1000)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Each counts its own spins, so that no compiler folds the two into one. */
static volatile long long_spins, short_spins;

static __attribute__((noinline)) double func_long(double until)
{
    double start = now();
    while (now() < until)
        long_spins++;
    return now() - start;
}

static __attribute__((noinline)) double func_short(double until)
{
    double start = now();
    while (now() < until)
        short_spins++;
    return now() - start;
}

int main(int argc, char **argv)
{
    double period = (argc > 1 ? atof(argv[1]) : 1000.0) * 1e-6;
    int cycles = argc > 2 ? atoi(argv[2]) : 1000, rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double spent_long = 0, spent_short = 0, start = now();
    for (int k = 0; k < cycles; k++) {
        spent_long += func_long(start + (k + 0.75) * period);
        spent_short += func_short(start + (k + 1) * period);
        MPI_Barrier(MPI_COMM_SELF);
    }
    printf("truth %d %.6f %.6f\n", rank, spent_long, spent_short);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
