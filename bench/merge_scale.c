/*
 * merge_scale.c - the merge at MPI_Finalize as P grows (bench/run.py,
 * section merge_scale; issue 41): every rank makes MPI_Allreduce calls
 * from a recursion of its own depth (rank % 13) and a little work between
 * them, so the ranks' call trees differ and the sampler sees them; then
 * rank 0 prints its peak resident memory before and after MPI_Finalize
 * (VmHWM, KB): "merge_scale: P ranks, hwm KB before, KB after".
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "peak_memory.h"

__attribute__((noinline)) static double work(int n)
{
    volatile double x = 0;
    for (int i = 0; i < n; i++)
        x += i * 0.5;
    return x;
}

__attribute__((noinline)) static void rec(int depth)
{
    double a = 1, b;
    if (depth == 0) {
        for (int i = 0; i < 20; i++) {
            work(1000000);
            MPI_Allreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
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
    long before = peak_kb();
    MPI_Finalize();
    if (rank == 0)
        printf("merge_scale: %d ranks, hwm %ld KB before, %ld KB after\n", size, before, peak_kb());
    return 0;
}
