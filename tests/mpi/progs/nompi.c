/* nompi.c - never calls MPI_Init (built with and without mpicc): run with
 * libhprof preloaded, its output must be byte-identical to a run without. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static long work(int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += i % 7;
    return s;
}

int main(int argc, char **argv)
{
    printf("nompi: stdout line, %ld\n", work(1000000));
    fprintf(stderr, "nompi: stderr line\n");
    for (int i = 1; i < argc; i++)
        printf("arg %d: %s\n", i, argv[i]);
    return 0;
}
