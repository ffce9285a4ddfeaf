/* exact_plug.c - a library with patchable entries that exact_dlopen.c
 * opens after MPI_Init (tests/mpi/exact_dlopen.sh), and
 * exact_dlopen_race.c again and again (tests/mpi/exact_dlopen_race.sh). */
#include <time.h>

#define NOINLINE __attribute__((noinline, visibility("default")))

long plug_calls[2]; /* plug_solve's, plug_step's */
static volatile double sink;

NOINLINE double plug_step(int i)
{
    plug_calls[1]++;
    for (int k = 0; k < 2000; k++)
        sink += (i + k) * 0.5;
    return sink;
}

NOINLINE double plug_solve(int n)
{
    plug_calls[0]++;
    double s = 0;
    for (int i = 0; i < n; i++)
        s += plug_step(i);
    return s;
}

/* The loader lists the library before its constructor runs: another
 * thread that looks meanwhile (exact_dlopen_race.c's) finds it first, and
 * patches it while dlopen returns and the program calls dlsym. */
__attribute__((constructor)) static void take_a_while(void)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 300000);
}
