/*
 * exact_silence.c - names selected that measure nothing, each for its own
 * reason (tests/mpi/exact_silence.sh): sq, a static inline function,
 * inlined everywhere at -O2; bare_add, in libexact_bare.so (exact_bare.c),
 * built without -fpatchable-function-entry; never, out of line and never
 * called; used, measured, called CALLS times a rank.
 */
#include <mpi.h>
#include <stdio.h>

#define CALLS 1000

int bare_add(int x);

static inline int sq(int x)
{
    return x * x;
}

__attribute__((noinline)) int never(int x)
{
    __asm__ volatile("" : "+r"(x));
    return x + 1;
}

__attribute__((noinline)) int used(int x)
{
    __asm__ volatile("" : "+r"(x));
    return sq(x) + bare_add(x);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int s = argc, all;
    for (int i = 0; i < CALLS; i++)
        s = used(s) & 0xffff;
    if (argc > 1000)
        s = never(s);
    MPI_Allreduce(&s, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("%d\n", all > 0);
    MPI_Finalize();
    return 0;
}
