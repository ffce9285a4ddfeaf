/*
 * Two programs in one source: "a" and "b" make different call trees
 * (phase_a or phase_b), and every rank exits without MPI_Finalize, so
 * each leaves its partial profile for hprof-merge.
 */
#include <mpi.h>
#include <stdlib.h>

__attribute__((noinline)) static void phase_a(void)
{
    for (int i = 0; i < 50; i++)
        MPI_Barrier(MPI_COMM_WORLD);
}

__attribute__((noinline)) static void phase_b(void)
{
    for (int i = 0; i < 7; i++)
        MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc > 1 && argv[1][0] == 'b')
        phase_b();
    else
        phase_a();
    MPI_Barrier(MPI_COMM_WORLD);
    exit(0);
}
