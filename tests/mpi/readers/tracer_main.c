/*
 * tracer_main.c - functions that call MPI, built with -finstrument-functions
 * (tests/mpi/return_readers.sh): the tracer (tracer_hooks.c) checks at each
 * exit the call site its entry saw; hprof's thunks in those return slots
 * would show instead.
 */
#include <mpi.h>

void tracer_report(void);

__attribute__((noinline)) void exchange(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

__attribute__((noinline)) void step(int i)
{
    exchange();
    if (i % 2)
        exchange();
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int i = 0; i < 1000; i++)
        step(i);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        tracer_report();
    MPI_Finalize();
    return 0;
}
