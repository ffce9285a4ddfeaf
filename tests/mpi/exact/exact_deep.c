/*
 * A selected recursion far deeper than the thunk stack (THUNK_COUNT, 512
 * frames): rec() goes DEPTH deep, REPS times, on each rank, and the
 * program counts its calls. Built with -fpatchable-function-entry=18,16.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define DEPTH 3000
#define REPS 5

static long n_rec;

__attribute__((noinline)) long rec(int depth)
{
    volatile long keep = depth; /* a frame of its own, not a loop */
    n_rec++;
    if (depth <= 0)
        return 0;
    return rec(depth - 1) + keep;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long sum = 0;
    for (int i = 0; i < REPS; i++)
        sum += rec(DEPTH);
    MPI_Barrier(MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("rank %d: rec %ld calls (sum %ld)\n", rank, n_rec, sum);
    MPI_Finalize();
    return 0;
}
