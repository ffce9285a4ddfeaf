/*
 * marks.c - MPI_Pcontrol called N times a rank (levels 1, 2, 3 in turn),
 * a barrier every 100 marks: more marks than hprof keeps (1024 a rank).
 *   marks N
 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = argc > 1 ? atol(argv[1]) : 2000;
    for (long i = 0; i < n; i++) {
        MPI_Pcontrol((int)(i % 3) + 1);
        if (i % 100 == 99)
            MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
