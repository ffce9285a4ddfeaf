/*
 * cpu_last.c - a thread computes for SECONDS of its own CPU time and then
 * stops computing while its window is still open, so that its last
 * sampling interval on the CPU clock is a good part of its time
 * (tests/mpi/sampling_cpu_last.sh, HPROF_SAMPLING_CLOCK=cpu at a low rate):
 *   thread SECONDS  a second thread computes, then waits (no CPU) until the
 *                   main thread, which waited for it, has left MPI_Finalize:
 *                   its window is closed by MPI_Finalize on another thread;
 *                   prints `thread_cpu X`, its CPU time from its start
 *   killed SECONDS  the main thread computes after MPI_Init, prints
 *                   `main_cpu X` (its CPU time from MPI_Init's return) and
 *                   raises SIGTERM: its window is closed by the killed
 *                   rank's writer, a fork
 *   finalize SECONDS the main thread computes after MPI_Init and calls
 *                   MPI_Finalize: its window is closed by its own call;
 *                   prints `main_cpu X` and `main_wall X`, the computation's
 *                   CPU and wall time
 */
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_time.h"

static void nap(void)
{
    struct timespec ms = { 0, 1000000 };
    nanosleep(&ms, NULL);
}

static double wall_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double seconds;
static int computed, released; /* the thread's done; the main thread lets it end */
static double thread_cpu;

static void *computer(void *arg)
{
    (void)arg;
    spin(seconds);
    thread_cpu = cpu_s();
    __atomic_store_n(&computed, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&released, __ATOMIC_ACQUIRE))
        nap();
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3 ||
        (strcmp(argv[1], "thread") && strcmp(argv[1], "killed") && strcmp(argv[1], "finalize"))) {
        fprintf(stderr, "usage: cpu_last thread|killed|finalize SECONDS\n");
        return 2;
    }
    seconds = atof(argv[2]);
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (!strcmp(argv[1], "killed")) {
        double c0 = cpu_s();
        spin(seconds);
        printf("main_cpu %.6f\n", cpu_s() - c0);
        fflush(stdout);
        raise(SIGTERM);
        return 1; /* not reached */
    }
    if (!strcmp(argv[1], "finalize")) {
        double c0 = cpu_s(), w0 = wall_s();
        spin(seconds);
        printf("main_cpu %.6f\nmain_wall %.6f\n", cpu_s() - c0, wall_s() - w0);
        fflush(stdout);
        MPI_Finalize();
        return 0;
    }
    pthread_t th;
    pthread_create(&th, NULL, computer, NULL);
    while (!__atomic_load_n(&computed, __ATOMIC_ACQUIRE))
        nap();
    MPI_Finalize();
    __atomic_store_n(&released, 1, __ATOMIC_RELEASE);
    pthread_join(th, NULL);
    printf("thread_cpu %.6f\n", thread_cpu);
    return 0;
}
