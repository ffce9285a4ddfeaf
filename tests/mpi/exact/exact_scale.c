/*
 * exact_scale.c - a function measured exactly whose visits scale known
 * with the process count P (tests/mpi/exact_extrap.sh): kernel runs
 * 10 * P times a rank, each call with an MPI_Allreduce (a solver's step);
 * Extra-P's model of its visits from runs at P = 1..5 is 10 * p.
 */
#include <mpi.h>

#define NOINLINE __attribute__((noinline))

static volatile double sink;

NOINLINE double kernel(double x)
{
    double r;
    for (int k = 0; k < 1000; k++)
        x = x * 0.999 + 1;
    MPI_Allreduce(&x, &r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return r;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 10 * size; i++)
        sink = kernel(sink) * 1e-9;
    MPI_Finalize();
    return 0;
}
