/* pmpi_init.c - initialises MPI behind hprof's back, as a binding or a
 * library that hprof does not wrap would (PMPI_Init), then makes MPI calls
 * through the wrapped C symbols and finalizes.
 *
 *   pmpi_init [EXIT_STATUS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank = 0;
    PMPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("pmpi_init: done\n");
    MPI_Finalize();
    return argc > 1 ? atoi(argv[1]) : 0;
}
