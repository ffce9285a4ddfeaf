/*
 * churn.c - many short threads, one at a time (the reproducer of issue 15,
 * item 7): THREADS threads (default 5000) that each make one MPI_Allreduce
 * on MPI_COMM_SELF and spin a little. Prints `rss RANK FIRST LAST` (resident
 * KB after the first thread and after the last): memory must not grow with
 * the number of threads that have ended.
 */
#include <mpi.h>

#include "../common/proc_memory.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static __attribute__((noinline)) void *w(void *a)
{
    double x = 1, y;
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
    volatile double s = 0;
    for (int i = 0; i < 1000; i++)
        s += i;
    return a;
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = argc > 1 ? atoi(argv[1]) : 5000;
    long first = 0;
    for (int i = 0; i < n; i++) {
        pthread_t t;
        pthread_create(&t, 0, w, 0);
        pthread_join(t, 0);
        if (i == 0)
            first = proc_memory_kb("VmRSS:");
    }
    printf("rss %d %ld %ld\n", rank, first, proc_memory_kb("VmRSS:"));
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
