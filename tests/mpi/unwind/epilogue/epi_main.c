/*
 * epi_main.c - samples in an epilogue (tests/mpi/unwind_epilogue.sh): the
 * program spends nearly all its time in epi_spin's epilogue (epi_spin.S),
 * between MPI_Barrier calls, and compiled with frame pointers so that the
 * caller's rbp matters to the rest of the walk.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

long epi_spin(long n);

static __attribute__((noinline)) long spin_rounds(int rounds, long n)
{
    long s = 0;
    for (int i = 0; i < rounds; i++) {
        s += epi_spin(n);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    long s = spin_rounds(rounds, 10000000);
    printf("done %ld\n", s);
    MPI_Finalize();
    return 0;
}
