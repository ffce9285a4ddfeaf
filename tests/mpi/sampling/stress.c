/*
 * stress.c - many cheap MPI calls per second while sampling fast: the
 * sampler must not crash, deadlock or lose the invariant.
 * usage: stress SECONDS [THREADS]   (THREADS > 1: MPI_THREAD_MULTIPLE, all hammering)
 */
#include <pthread.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static __attribute__((noinline)) long hammer(double seconds)
{
    long calls = 0;
    int r;
    double end = now() + seconds;
    while (now() < end) {
        for (int i = 0; i < 1000; i++)
            MPI_Comm_rank(MPI_COMM_WORLD, &r);
        calls += 1000;
    }
    return calls;
}

static double seconds = 5.0;
static long thread_calls[64];

static void *hammer_thread(void *arg)
{
    thread_calls[(long)arg] = hammer(seconds);
    return NULL;
}

int main(int argc, char **argv)
{
    seconds = argc > 1 ? atof(argv[1]) : 5.0;
    int nthreads = argc > 2 ? atoi(argv[2]) : 1;
    if (nthreads < 1 || nthreads > 64)
        nthreads = 1;
    int rank, provided;
    MPI_Init_thread(&argc, &argv, nthreads > 1 ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    pthread_t th[64];
    for (long t = 1; t < nthreads; t++)
        pthread_create(&th[t], NULL, hammer_thread, (void *)t);
    thread_calls[0] = hammer(seconds);
    long calls = thread_calls[0];
    for (int t = 1; t < nthreads; t++) {
        pthread_join(th[t], NULL);
        calls += thread_calls[t];
    }
    printf("calls %d %ld %.0f\n", rank, calls, calls / seconds);
    MPI_Finalize();
    return 0;
}
