/* Prints its arguments, one in brackets each (rank 0), between MPI_Init
 * and MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        printf("worker argv:");
        for (int i = 1; i < argc; i++)
            printf(" [%s]", argv[i]);
        printf("\n");
    }
    MPI_Finalize();
    return 0;
}
