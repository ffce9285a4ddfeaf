/*
 * blocked.c MODE - a program that blocks signals hprof could sample on.
 * MODE none: nothing blocked; prof: SIGPROF blocked before MPI_Init; all:
 * SIGPROF and every real-time signal blocked before MPI_Init; late: both
 * blocked after MPI_Init. Then 0.6 s of computation in compute() and 0.3 s
 * in other() (wall clock), one barrier. Prints "truth RANK COMPUTE OTHER",
 * the seconds each function took by the program's own clock.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static volatile double sink;

__attribute__((noinline)) static double spin(double seconds)
{
    double start = now(), x = 0;
    while (now() - start < seconds)
        x += 1;
    sink = x;
    return now() - start;
}

__attribute__((noinline)) static double compute(void)
{
    return spin(0.6);
}
__attribute__((noinline)) static double other(void)
{
    return spin(0.3);
}

static void block(int with_realtime)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGPROF);
    for (int i = SIGRTMIN; with_realtime && i <= SIGRTMAX; i++)
        sigaddset(&s, i);
    pthread_sigmask(SIG_BLOCK, &s, NULL);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "none";
    if (!strcmp(mode, "prof") || !strcmp(mode, "all"))
        block(!strcmp(mode, "all"));
    MPI_Init(&argc, &argv);
    if (!strcmp(mode, "late"))
        block(1);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double c = compute(), o = other();
    MPI_Barrier(MPI_COMM_WORLD);
    printf("truth %d %.6f %.6f\n", rank, c, o);
    MPI_Finalize();
    return 0;
}
