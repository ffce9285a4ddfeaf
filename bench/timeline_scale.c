/*
 * timeline_scale.c - what the merge at MPI_Finalize costs rank 0 as ranks
 * are added (issue 41): every rank computes and calls MPI_Allreduce for
 * `steps` steps, work growing with its rank so that the ranks' time lines
 * differ; rank 0 prints its peak resident size before and after
 * MPI_Finalize: "hwm_before KB" and "hwm_after KB".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/mpi/common/proc_memory.h"

__attribute__((noinline)) static double compute(long n)
{
    double x = 0;
    for (long i = 0; i < n; i++)
        x += 1.0 / (double)(i + 1);
    return x;
}

int main(int argc, char **argv)
{
    int rank, size, steps = argc > 1 ? atoi(argv[1]) : 200;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double a = 0, b;
    for (int s = 0; s < steps; s++) {
        a += compute(20000 + 2000L * (rank % 7));
        MPI_Allreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    long before = proc_memory_kb("VmHWM:");
    MPI_Finalize();
    if (rank == 0)
        printf("hwm_before %ld\nhwm_after %ld\nsum %g\n", before, proc_memory_kb("VmHWM:"), b);
    return 0;
}
