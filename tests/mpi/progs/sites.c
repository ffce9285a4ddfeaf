/*
 * sites.c - MPI call sites that read alike: sync_all's MPI_Barrier is
 * reached from two callers (setup, finish), and norms() calls
 * MPI_Allreduce twice (in a stripped build only the return addresses tell
 * the two apart). Expected visits per rank: setup 2 and finish 3 barriers,
 * each MPI_Allreduce call site ITER times.
 */
#include <mpi.h>
#include <stdio.h>

#define ITER 4

static void __attribute__((noinline)) sync_all(int n)
{
    for (int i = 0; i < n; i++)
        MPI_Barrier(MPI_COMM_WORLD);
}

static void __attribute__((noinline)) setup(void)
{
    sync_all(2);
}
static void __attribute__((noinline)) finish(void)
{
    sync_all(3);
}

static double __attribute__((noinline)) norms(double x)
{
    double sum, max;
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&x, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return sum + max;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    setup();
    double s = 0;
    for (int i = 0; i < ITER; i++)
        s += norms(i);
    finish();
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("sites: done %.0f\n", s);
    MPI_Finalize();
    return 0;
}
