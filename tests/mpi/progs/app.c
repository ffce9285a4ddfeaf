/* app.c - a small MPI program shared by several end-to-end tests.
 *
 *   app [ITERS [EXIT_STATUS [MODE]]]
 *
 * Each iteration: main -> work -> compute (a little arithmetic),
 * main -> work -> exchange -> MPI_Sendrecv (ring, APP_COUNT doubles),
 * main -> work -> MPI_Allreduce (1 double). Returns EXIT_STATUS (default 0)
 * after MPI_Finalize. MODE "abort": the last rank calls MPI_Abort(7) while
 * the other ranks wait in MPI_Barrier (main -> waiter -> MPI_Barrier). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))
#define APP_COUNT 256

static int rank, np;
static volatile double sink;

NOINLINE static void compute(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += (double)i * 1e-9 + s * 1e-12;
    sink = s;
}

NOINLINE static void exchange(double *sb, double *rb)
{
    MPI_Sendrecv(sb, APP_COUNT, MPI_DOUBLE, (rank + 1) % np, 1, rb, APP_COUNT, MPI_DOUBLE,
                 (rank + np - 1) % np, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

NOINLINE static double work(int iters)
{
    static double sb[APP_COUNT], rb[APP_COUNT];
    double x = rank, y = 0;
    for (int i = 0; i < iters; i++) {
        compute(100000);
        exchange(sb, rb);
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    return y;
}

NOINLINE static void waiter(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 10;
    int status = argc > 2 ? atoi(argv[2]) : 0;
    const char *mode = argc > 3 ? argv[3] : "";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    double y = work(iters);
    if (strcmp(mode, "abort") == 0) {
        if (rank == np - 1) {
            fprintf(stderr, "app: rank %d calls MPI_Abort\n", rank);
            MPI_Abort(MPI_COMM_WORLD, 7);
        }
        waiter();
    }
    if (rank == 0)
        printf("app: done %d iterations on %d ranks (%g)\n", iters, np, y);
    MPI_Finalize();
    return status;
}
