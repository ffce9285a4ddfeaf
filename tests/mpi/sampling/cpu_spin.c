/*
 * cpu_spin.c - each rank computes for SECONDS of its own CPU time (the
 * loop ends on the thread's CPU clock, so a loaded machine stretches it
 * but not the CPU time), between MPI_Init and MPI_Finalize, and prints
 *   cpu RANK LOW HIGH
 * bounds of its CPU time between MPI_Init's entry and MPI_Finalize's, read
 * on the same clock: from MPI_Init's return, and from the thread's start
 * (tests/mpi/sampling_cpu_rate.sh).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cpu_time.h"

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 0.4;
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double c0 = cpu_s();
    spin(seconds);
    MPI_Barrier(MPI_COMM_WORLD);
    double c1 = cpu_s();
    printf("cpu %d %.6f %.6f\n", rank, c1 - c0, c1);
    MPI_Finalize();
    return 0;
}
