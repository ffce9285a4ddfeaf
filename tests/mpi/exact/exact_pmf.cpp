/*
 * exact_pmf.cpp - calls through C++ pointers to non-virtual member
 * functions, as a communication routine picked from a table does (issue
 * 38.1). Built with -fpatchable-function-entry=7,5 every entry is odd and
 * the Itanium ABI takes bit 0 of such a pointer for "virtual": the call
 * jumps through a vtable that does not exist. "direct" calls the members
 * by name instead, so a 7,5 build runs far enough to hear hprof's line.
 * Each rank prints its sum; 5 rounds call Field::low and Field::high once
 * each.
 */
#include <mpi.h>
#include <cstdio>
#include <cstring>

struct Field {
    double v[4] = { 1, 2, 3, 4 };
    __attribute__((noinline)) double low(int i) { return v[i & 1]; }
    __attribute__((noinline)) double high(int i) { return v[2 + (i & 1)]; }
};
typedef double (Field::*Pick)(int);

__attribute__((noinline)) double through_pointers(Field &f, const Pick *pick, int n, int i)
{
    double s = 0;
    for (int k = 0; k < n; ++k)
        s += (f.*pick[k])(i);
    return s;
}

__attribute__((noinline)) double by_name(Field &f, int i) { return f.low(i) + f.high(i); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const bool direct = argc > 1 && std::strcmp(argv[1], "direct") == 0;
    Field f;
    const Pick pick[2] = { &Field::low, &Field::high };
    double local = 0, total = 0;
    for (int round = 0; round < 5; ++round)
        local += direct ? by_name(f, round + rank) : through_pointers(f, pick, 2, round + rank);
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    std::printf("rank %d sum %g total %g\n", rank, local, total);
    MPI_Finalize();
    return 0;
}
