/*
 * exact_cost.c - the cost of a function measured exactly, per visit (bench
 * section 5b). Built with -fpatchable-function-entry=7,5 (or without, or
 * with -finstrument-functions and bench/cygprof.c), run on one rank:
 *
 *   exact_cost loop N    N calls of leaf from one loop
 *   exact_cost chain D R R calls of a recursion D deep (D calls each):
 *                        every call from a new activation of its caller
 *
 * prints "per_call NS" (the thread's CPU time per call of a measured
 * function: on a shared machine the wall clock also counts other
 * processes' turns) and "calls N".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile long sink;

__attribute__((noinline)) long leaf(long x)
{
    return x * 3 + 1;
}

__attribute__((noinline)) long node(int depth)
{
    volatile int here = depth;
    if (depth <= 1)
        return 1;
    return node(depth - 1) + here;
}

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long calls = 0;
    double t0 = cpu_now();
    if (argc >= 3 && strcmp(argv[1], "loop") == 0) {
        long n = atol(argv[2]);
        for (long i = 0; i < n; i++)
            sink += leaf(i);
        calls = n;
    } else if (argc >= 4 && strcmp(argv[1], "chain") == 0) {
        int d = atoi(argv[2]);
        long r = atol(argv[3]);
        for (long i = 0; i < r; i++)
            sink += node(d);
        calls = r * d;
    } else {
        fprintf(stderr, "usage: exact_cost loop N | chain D R\n");
        return 2;
    }
    double t = cpu_now() - t0;
    printf("per_call %.2f\ncalls %ld\n", t * 1e9 / (double)calls, calls);
    MPI_Finalize();
    return 0;
}
