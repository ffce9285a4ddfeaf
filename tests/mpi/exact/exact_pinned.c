/*
 * exact_pinned.c - HPROF_SELECT=auto and the functions on a stack since
 * before they could be patched (tests/mpi/exact_pinned.sh): main computes
 * in its own body (most of its thread's samples are its own) and calls
 * work; a thread started after MPI_Init runs spin, which computes in its
 * own body for the whole run. Sampled alone, main and spin are among the
 * most sampled; each has one visit, begun before any patch.
 * Runs about 2.5 s.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static volatile int stop;
static volatile double sink;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

NOINLINE void *spin(void *arg)
{
    double x = 1;
    while (!stop)
        for (int k = 0; k < 100000; k++)
            x = x * 0.999 + 1;
    sink += x;
    return arg;
}

NOINLINE double work(double x)
{
    for (int k = 0; k < 200000; k++)
        x = x * 0.999 + 1;
    return x;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    pthread_t t;
    if (pthread_create(&t, NULL, spin, NULL) != 0)
        return 1;
    double t0 = now(), x = 1;
    for (int go = 1; go;) {
        for (int k = 0; k < 200000; k++) /* main's own time */
            x = x * 0.999 + 1;
        x = work(x);
        int mine = now() - t0 < 2.5, all;
        MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        go = all;
    }
    stop = 1;
    pthread_join(t, NULL);
    sink += x;
    printf("%d\n", sink > 0);
    MPI_Finalize();
    return 0;
}
