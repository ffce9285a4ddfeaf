/*
 * vdso_clock.c - a program that spends its time reading the clock, which
 * the kernel's vDSO serves in user space (clock_gettime, and MPI_Wtime on
 * top of it): every rank is sampled in the vDSO. Prints "reads RANK N",
 * its own count of clock reads.
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double read_clocks(int n)
{
    struct timespec ts;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        clock_gettime(CLOCK_MONOTONIC, &ts);
        sum += (double)ts.tv_nsec + MPI_Wtime();
    }
    return sum;
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long reads = 0;
    double sum = 0, start = MPI_Wtime();
    while (MPI_Wtime() - start < 1.0) {
        sum += read_clocks(1000);
        reads += 1000;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    printf("reads %d %ld %d\n", rank, reads, sum > 0);
    MPI_Finalize();
    return 0;
}
