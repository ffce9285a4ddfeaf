/*
 * exact_split_main.cpp - the first file of exact_split (issue 38.2; see
 * exact_split_b.cpp): rank r calls split_a_work (this file's) and
 * split_b_work (the other file's, whose patch records the linker dropped)
 * 5 + r times each from main.
 */
#include <mpi.h>
#include <cstdio>

#include "exact_split.h"

__attribute__((noinline)) int split_a_work(int x)
{
    return split_shared(x) + 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int sum = 0;
    for (int i = 0; i < 5 + rank; i++)
        sum += split_a_work(i) + split_b_work(i);
    std::printf("rank %d sum %d\n", rank, sum);
    MPI_Finalize();
    return 0;
}
