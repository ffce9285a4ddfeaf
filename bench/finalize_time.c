/*
 * finalize_time.c - MPI_Finalize as the program sees it (bench/run.py,
 * section 6, the two MPI libraries at 64 ranks): every rank makes 20
 * MPI_Allreduce calls from a recursion of its own depth (rank % 13), so
 * the ranks' call trees differ; then a barrier, and rank 0 prints how long
 * MPI_Finalize took by its own clock: "finalize_time: P ranks, T s".
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

__attribute__((noinline)) static void rec(int depth)
{
    double a = 1, b;
    if (depth == 0) {
        for (int i = 0; i < 20; i++)
            MPI_Allreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        return;
    }
    rec(depth - 1);
    __asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rec(rank % 13);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = now();
    MPI_Finalize();
    if (rank == 0)
        printf("finalize_time: %d ranks, %.6f s\n", size, now() - t);
    return 0;
}
