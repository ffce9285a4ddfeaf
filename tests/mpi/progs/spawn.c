/* spawn.c - a job that starts another with MPI_Comm_spawn, for mpi_spawn.sh.
 *
 *   spawn [NCHILD]      the parent job (any size): NPARENT x MPI_Allreduce,
 *                       then spawns NCHILD (default 2) copies of itself with
 *                       the argument "child", MPI_Barrier with them,
 *                       disconnects
 *   spawn child         a child: NCHILD_RED x MPI_Allreduce among the
 *                       children, MPI_Barrier with the parent, disconnects
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPARENT 3
#define NCHILD_RED 5

__attribute__((noinline)) static void reduce_loop(int n, MPI_Comm comm)
{
    double x = 1, y;
    for (int i = 0; i < n; i++)
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, comm);
}

int main(int argc, char **argv)
{
    MPI_Comm parent, inter;
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_get_parent(&parent);
    if (parent == MPI_COMM_NULL) {
        char *cargv[] = { "child", NULL };
        reduce_loop(NPARENT, MPI_COMM_WORLD);
        MPI_Comm_spawn(argv[0], cargv, argc > 1 ? atoi(argv[1]) : 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                       MPI_ERRCODES_IGNORE);
        MPI_Barrier(inter);
        MPI_Comm_disconnect(&inter);
        if (rank == 0)
            printf("spawn: parent done\n");
    } else {
        reduce_loop(NCHILD_RED, MPI_COMM_WORLD);
        MPI_Barrier(parent);
        MPI_Comm_disconnect(&parent);
        if (rank == 0)
            printf("spawn: children done\n");
    }
    MPI_Finalize();
    return 0;
}
