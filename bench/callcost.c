/*
 * callcost.c - cost of one wrapped MPI call, and of one sample, at a given
 * stack depth. One rank.
 *
 *   callcost calls DEPTH N     N x MPI_Barrier(MPI_COMM_SELF) at depth DEPTH;
 *                              prints `ns_per_call X`
 *   callcost spin DEPTH ITERS  a fixed amount of arithmetic at depth DEPTH;
 *                              prints `seconds X`
 * Run the same binary with and without hprof (and with sampling at different
 * rates) and compare: the difference is hprof's cost.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile double sink;

static __attribute__((noinline)) void leaf_calls(long n)
{
    for (long i = 0; i < n; i++)
        MPI_Barrier(MPI_COMM_SELF);
}

static __attribute__((noinline)) void leaf_spin(long iters)
{
    double x = 1.0;
    for (long i = 0; i < iters; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

/* Recursion to the requested depth; the volatile keeps frames real. */
static __attribute__((noinline)) void descend(int depth, int spin, long n)
{
    volatile int guard = depth;
    if (guard > 1) {
        descend(depth - 1, spin, n);
    } else if (spin) {
        leaf_spin(n);
    } else {
        leaf_calls(n);
    }
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: callcost calls|spin DEPTH N\n");
        return 2;
    }
    int spin = strcmp(argv[1], "spin") == 0;
    int depth = atoi(argv[2]);
    long n = atol(argv[3]);
    MPI_Init(&argc, &argv);
    descend(depth, spin, n / 10); /* warm-up: caches, page faults */
    double t = now();
    descend(depth, spin, n);
    t = now() - t;
    if (spin)
        printf("seconds %.9f\n", t);
    else
        printf("ns_per_call %.2f\n", t * 1e9 / (double)n);
    MPI_Finalize();
    return 0;
}
