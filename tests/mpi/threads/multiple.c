/*
 * multiple.c - MPI_THREAD_MULTIPLE: NTHREADS threads on every rank each make
 * a known number of MPI_Sendrecv calls with a known, thread-specific size,
 * exchanging with the same thread of the neighbour ranks (tag = thread).
 * Thread t makes CALLS(t) = 100 * (t + 1) calls of (t + 1) * 8 doubles.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 4

static int rank, size;

static __attribute__((noinline)) void exchange(int t, double *out, double *in)
{
    int n = (t + 1) * 8;
    MPI_Sendrecv(out, n, MPI_DOUBLE, (rank + 1) % size, t, in, n, MPI_DOUBLE, (rank + size - 1) % size, t,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static __attribute__((noinline)) void *worker(void *arg)
{
    int t = (int)(long)arg;
    double out[64] = { 0 }, in[64];
    for (int i = 0; i < 100 * (t + 1); i++)
        exchange(t, out, in);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        printf("no MPI_THREAD_MULTIPLE\n");
        MPI_Finalize();
        return 0;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    pthread_t th[NTHREADS];
    for (long t = 0; t < NTHREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
