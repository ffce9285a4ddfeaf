/* reduce.c - per-rank counts known in advance, for merge_reduced.sh:
 *   every rank r:  main -> per_rank -> MPI_Sendrecv with MPI_PROC_NULL (r + 1 times)
 *   rank 1 only:   main -> only_one -> MPI_Sendrecv with MPI_PROC_NULL (2 times) */
#include <mpi.h>

#define NOINLINE __attribute__((noinline))

static int rank;

static void to_nobody(int times)
{
    int x = 1, y;
    for (int i = 0; i < times; i++)
        MPI_Sendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &y, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
}

NOINLINE static void per_rank(void)
{
    to_nobody(rank + 1);
}

NOINLINE static void only_one(void)
{
    to_nobody(2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    per_rank();
    if (rank == 1)
        only_one();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
