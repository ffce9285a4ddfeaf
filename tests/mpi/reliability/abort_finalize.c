/*
 * abort_finalize.c DELAY_MS - MPI_Abort from a watchdog thread while the
 * main thread is in MPI_Finalize (in hprof's merge, given a wide call tree:
 * 2^13 call paths to MPI_Barrier). Rank 0's helper thread waits until its
 * main thread has entered MPI_Finalize, then DELAY_MS more, then aborts
 * with status 5. Every rank first makes 50 MPI_Allreduce calls in work().
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile int in_finalize;
static int delay_ms = 20;

static __attribute__((noinline)) void wide(int d)
{
    volatile int guard = d;
    if (guard == 0) {
        MPI_Barrier(MPI_COMM_SELF);
        return;
    }
    wide(d - 1);
    __asm__ volatile("" ::: "memory");
    wide(d - 1);
    __asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void work(void)
{
    double x = 1, y;
    for (int i = 0; i < 50; i++)
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

static void *watchdog(void *arg)
{
    while (!in_finalize)
        usleep(100);
    usleep((useconds_t)delay_ms * 1000);
    fprintf(stderr, "watchdog: MPI_Abort during MPI_Finalize\n");
    MPI_Abort(MPI_COMM_WORLD, 5);
    return arg;
}

int main(int argc, char **argv)
{
    int provided, rank;
    if (argc > 1)
        delay_ms = atoi(argv[1]);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    work();
    wide(13);
    MPI_Barrier(MPI_COMM_WORLD);
    pthread_t t;
    if (rank == 0)
        pthread_create(&t, NULL, watchdog, NULL);
    in_finalize = 1;
    MPI_Finalize();
    if (rank == 0)
        pthread_join(t, NULL);
    return 0;
}
