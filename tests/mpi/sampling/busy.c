/* About WORK million loop iterations of computation at recursion depths
 * 0..19, with an MPI_Allreduce after each round: a program that only ends
 * if sampling leaves it time to run (issue 15: 70-100 kHz never ended). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) double work(int depth, long n)
{
    if (depth > 0)
        return work(depth - 1, n) + 1;
    volatile double a = 0;
    for (long i = 0; i < n; i++)
        a += (double)i;
    return a;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = (argc > 1 ? atol(argv[1]) : 50) * 1000000L / 100;
    double s = 0, y = 0;
    for (int i = 0; i < 100; i++) {
        double x = work(i % 20, n);
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        s += y;
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("busy done %d\n", s > 0);
    MPI_Finalize();
    return 0;
}
