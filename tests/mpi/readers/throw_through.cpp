// throw_through.cpp - an exception thrown after an MPI call, through frames
// whose return addresses hprof's walk of that call replaced by its thunks
// (tests/mpi/return_readers.sh). Built with the C++ runtime linked
// statically, its own unwinder walks those frames: hprof cannot put the
// return addresses back first. level2 is the function measured exactly in
// one of the runs (its exit thunk in its slot when the exception passes).
#include <mpi.h>
#include <stdexcept>
#include <stdio.h>

__attribute__((noinline)) void work(int i)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (i % 2)
        throw std::runtime_error("odd");
}

__attribute__((noinline)) void level2(int i)
{
    work(i);
    asm volatile("");
}

__attribute__((noinline)) void level1(int i)
{
    level2(i);
    asm volatile("");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int caught = 0;
    for (int i = 0; i < 100; i++) {
        try {
            level1(i);
        } catch (const std::exception &e) {
            caught++;
        }
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("caught %d of 100\n", caught);
    MPI_Finalize();
    return 0;
}
