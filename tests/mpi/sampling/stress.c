/*
 * stress.c - many cheap MPI calls per second while sampling fast: the
 * sampler must not crash, deadlock or lose the invariant.
 * usage: stress SECONDS
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

static __attribute__((noinline)) long hammer(double seconds)
{
    long calls = 0;
    int r;
    double end = now() + seconds;
    while (now() < end) {
        for (int i = 0; i < 1000; i++)
            MPI_Comm_rank(MPI_COMM_WORLD, &r);
        calls += 1000;
    }
    return calls;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 5.0;
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long calls = hammer(seconds);
    printf("calls %d %ld %.0f\n", rank, calls, calls / seconds);
    MPI_Finalize();
    return 0;
}
