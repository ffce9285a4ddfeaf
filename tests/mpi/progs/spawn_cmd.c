/* spawn_cmd.c - MPI_Comm_spawn of a command given on the command line, for
 * spawn_paths.sh.
 *
 *   spawn_cmd CMD [ARGS...]   the parent job (any size): NPARENT x
 *                             MPI_Allreduce, spawns NCHILD copies of CMD
 *                             with ARGS, MPI_Barrier with them, disconnects
 *   (as a child)              prints its argv (rank 0), NCHILD_RED x
 *                             MPI_Allreduce among the children, MPI_Barrier
 *                             with the parent, disconnects
 */
#include <mpi.h>
#include <stdio.h>

#define NPARENT 3
#define NCHILD 2
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
        if (argc < 2) {
            MPI_Finalize();
            return 2;
        }
        reduce_loop(NPARENT, MPI_COMM_WORLD);
        MPI_Comm_spawn(argv[1], argc > 2 ? argv + 2 : MPI_ARGV_NULL, NCHILD, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
                       &inter, MPI_ERRCODES_IGNORE);
        MPI_Barrier(inter);
        MPI_Comm_disconnect(&inter);
        if (rank == 0)
            printf("spawn_cmd: parent done\n");
    } else {
        if (rank == 0) {
            printf("spawn_cmd: child argv:");
            for (int i = 0; i < argc; i++)
                printf(" [%s]", argv[i]);
            printf("\n");
        }
        reduce_loop(NCHILD_RED, MPI_COMM_WORLD);
        MPI_Barrier(parent);
        MPI_Comm_disconnect(&parent);
        if (rank == 0)
            printf("spawn_cmd: children done\n");
    }
    MPI_Finalize();
    return 0;
}
