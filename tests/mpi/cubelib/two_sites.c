/*
 * two_sites.c - what a Cube user looks at first: exchange() calls
 * MPI_Sendrecv from two call sites (ITER times each), then collectives and
 * computation. Score-P's call tree has one MPI_Sendrecv under exchange,
 * with 2 x ITER visits on every rank.
 */
#include <mpi.h>

#define ITER 20

static volatile double sink;

static void __attribute__((noinline)) compute(long n)
{
    double s = 0;
    for (long i = 0; i < n; i++)
        s += (double)i * 0.5;
    sink = s;
}

static void __attribute__((noinline)) exchange(int rank, int size)
{
    double a[64] = { 0 }, b[64];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < ITER; i++) {
        MPI_Sendrecv(a, 64, MPI_DOUBLE, right, 1, b, 64, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        compute(20000);
        MPI_Sendrecv(a, 32, MPI_DOUBLE, left, 2, b, 32, MPI_DOUBLE, right, 2, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    exchange(rank, size);
    double x = rank, y;
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(&y, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    compute(20000000);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
