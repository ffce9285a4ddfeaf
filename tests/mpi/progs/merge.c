/* merge.c - rank-dependent call paths for merge_32_ranks.sh (any even NP).
 *   all ranks:      main -> common -> MPI_Allreduce          (M_ITER)
 *   even ranks:     main -> even_send -> MPI_Send to r+1     (M_MSG, M_COUNT ints)
 *   odd ranks:      main -> odd_recv -> MPI_Recv from r-1    (M_MSG)
 *   rank % 4 == 0:  main -> quad -> deeper -> MPI_Sendrecv with MPI_PROC_NULL (2)
 *   last rank:      main -> last_only -> MPI_Sendrecv with MPI_PROC_NULL (1) */
#include <mpi.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline))
#define M_ITER 5
#define M_MSG 3
#define M_COUNT 100

static int rank, np;

NOINLINE static void common(void)
{
    double x = rank, y;
    for (int i = 0; i < M_ITER; i++)
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

NOINLINE static void even_send(void)
{
    int buf[M_COUNT] = { 0 };
    for (int i = 0; i < M_MSG; i++)
        MPI_Send(buf, M_COUNT, MPI_INT, rank + 1, 5, MPI_COMM_WORLD);
}

NOINLINE static void odd_recv(void)
{
    int buf[M_COUNT];
    for (int i = 0; i < M_MSG; i++)
        MPI_Recv(buf, M_COUNT, MPI_INT, rank - 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

NOINLINE static void nullxchg(void)
{
    int a = 0, b = 0;
    MPI_Sendrecv(&a, 1, MPI_INT, MPI_PROC_NULL, 6, &b, 1, MPI_INT, MPI_PROC_NULL, 6, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

NOINLINE static void deeper(void)
{
    nullxchg();
    nullxchg();
}
NOINLINE static void quad(void)
{
    deeper();
}

NOINLINE static void last_only(void)
{
    int a = 0, b = 0;
    MPI_Sendrecv(&a, 1, MPI_INT, MPI_PROC_NULL, 6, &b, 1, MPI_INT, MPI_PROC_NULL, 6, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    common();
    if (rank % 2 == 0 && rank + 1 < np)
        even_send();
    if (rank % 2 == 1)
        odd_recv();
    if (rank % 4 == 0)
        quad();
    if (rank == np - 1)
        last_only();
    if (rank == 0)
        printf("merge: done on %d ranks\n", np);
    MPI_Finalize();
    return 0;
}
