/*
 * papi_cost.c - what HPROF_METRICS costs per MPI call and per sample, with
 * PAPI Software Defined Events (the counters these machines have). One rank.
 * Registers 8 SDE counters, sde:::hprofbench::C0 .. C7, that the loops
 * advance, so every read sees them move.
 *
 *   papi_cost calls N     N x MPI_Barrier(MPI_COMM_SELF) at depth 10;
 *                         prints `ns_per_call X`
 *   papi_cost spin ITERS  fixed arithmetic at depth 10; prints `seconds X`
 *
 * Run it under hprof without HPROF_METRICS and with 1, 4, 8 of the counters
 * named in it: the difference is the cost of reading them.
 */
#include <mpi.h>
#include <sde_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NCOUNTERS 8
#define DEPTH 10

static long long counter[NCOUNTERS];
static volatile double sink;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static __attribute__((noinline)) void leaf_calls(long n)
{
    for (long i = 0; i < n; i++) {
        counter[i % NCOUNTERS]++;
        MPI_Barrier(MPI_COMM_SELF);
    }
}

static __attribute__((noinline)) void leaf_spin(long iters)
{
    double x = 1.0;
    for (long i = 0; i < iters; i++) {
        x = x * 1.0000001 + 1e-9;
        counter[i & (NCOUNTERS - 1)]++;
    }
    sink = x;
}

static __attribute__((noinline)) void descend(int depth, int spin, long n)
{
    volatile int guard = depth;
    if (guard > 1)
        descend(depth - 1, spin, n);
    else if (spin)
        leaf_spin(n);
    else
        leaf_calls(n);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: papi_cost calls|spin N\n");
        return 2;
    }
    papi_handle_t h = papi_sde_init("hprofbench");
    for (int i = 0; i < NCOUNTERS; i++) {
        char name[8];
        snprintf(name, sizeof name, "C%d", i);
        papi_sde_register_counter(h, name, PAPI_SDE_RO | PAPI_SDE_DELTA, PAPI_SDE_long_long, &counter[i]);
    }
    MPI_Init(&argc, &argv);
    int spin = strcmp(argv[1], "spin") == 0;
    long n = atol(argv[2]);
    descend(DEPTH, spin, n / 10); /* warm-up: tree nodes, caches */
    double t0 = now();
    descend(DEPTH, spin, n);
    double t = now() - t0;
    if (spin)
        printf("seconds %.6f\n", t);
    else
        printf("ns_per_call %.1f\n", t * 1e9 / (double)n);
    MPI_Finalize();
    return 0;
}
