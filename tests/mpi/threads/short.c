/*
 * short.c - many short-lived threads: THREADS threads (default 1000), at
 * most 8 alive at once, each spins ~1 ms and makes 3 MPI calls. No data may
 * be lost (3 x THREADS calls of MPI_Barrier on MPI_COMM_SELF per rank) and
 * memory must stay bounded. Prints `hwm RANK KB` (peak resident memory).
 */
#include <mpi.h>

#include "../common/proc_memory.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static __attribute__((noinline)) void *short_life(void *arg)
{
    double end = now() + 1e-3;
    while (now() < end)
        ;
    for (int i = 0; i < 3; i++)
        MPI_Barrier(MPI_COMM_SELF);
    return arg;
}

int main(int argc, char **argv)
{
    int provided, rank;
    int nthreads = argc > 1 ? atoi(argv[1]) : 1000;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int done = 0; done < nthreads; done += 8) {
        pthread_t th[8];
        int n = nthreads - done < 8 ? nthreads - done : 8;
        for (int i = 0; i < n; i++)
            pthread_create(&th[i], NULL, short_life, NULL);
        for (int i = 0; i < n; i++)
            pthread_join(th[i], NULL);
    }
    printf("hwm %d %ld\n", rank, proc_memory_kb("VmHWM:"));
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
