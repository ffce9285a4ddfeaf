/*
 * soak.c - a long, busy run for `make soak`: every rank has a main thread
 * and a worker thread (MPI_THREAD_MULTIPLE) that together make about
 * RATE MPI calls per second (ring MPI_Sendrecv on the worker, cheap local
 * calls and an occasional MPI_Allreduce on the main thread), with
 * computation in between. Prints `rss RANK T KB` every 10 s of the run
 * and `calls RANK N` at the end.
 *
 * usage: soak SECONDS [RATE]
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "peak_memory.h"

static int rank, size;
static double seconds;
static long rate = 200000;
static long worker_calls;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long rss_kb(void)
{
    return status_kb("VmRSS:");
}

static __attribute__((noinline)) double compute(int n)
{
    double x = 1;
    for (int i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

static __attribute__((noinline)) void ring(double *out, double *in)
{
    MPI_Sendrecv(out, 8, MPI_DOUBLE, (rank + 1) % size, 7, in, 8, MPI_DOUBLE, (rank + size - 1) % size, 7,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void *worker(void *arg)
{
    double out[8] = { 0 }, in[8];
    double end = now() + seconds;
    while (now() < end) {
        for (int i = 0; i < 100; i++) {
            ring(out, in);
            compute(50);
        }
        worker_calls += 100;
    }
    return arg;
}

static __attribute__((noinline)) long local_calls(long n)
{
    int r;
    for (long i = 0; i < n; i++) {
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
        if (i % 64 == 0)
            compute(20);
    }
    return n;
}

int main(int argc, char **argv)
{
    seconds = argc > 1 ? atof(argv[1]) : 120;
    if (argc > 2)
        rate = atol(argv[2]);
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    pthread_t th;
    pthread_create(&th, NULL, worker, NULL);
    double start = now(), next_report = start + 10;
    long calls = 0;
    while (now() - start < seconds) {
        /* pace the main thread to its share of the rate, 10 ms at a time */
        double slice = now();
        calls += local_calls(rate / 200);
        double x = 1, y;
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
        calls++;
        while (now() - slice < 0.01)
            compute(100);
        if (now() >= next_report) {
            printf("rss %d %.0f %ld\n", rank, now() - start, rss_kb());
            fflush(stdout);
            next_report += 10;
        }
    }
    pthread_join(th, NULL);
    printf("rss %d %.0f %ld\n", rank, now() - start, rss_kb());
    printf("calls %d %ld %.0f\n", rank, calls + worker_calls, (calls + worker_calls) / seconds);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
