/* layout.c - a layout that differs by rank, for merge_layout.sh: rank r
 * runs r % 3 threads besides its main one, thread t (1..) started in
 * routine ROUTINE[(r + t - 1) % 4], all alive through MPI_Finalize, so
 * that each rank's thread count and names say which rank it is. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static int done, started;

/* Threads take their numbers as they start: one at a time keeps them in
 * order. */
static void wait_done(void)
{
    pthread_mutex_lock(&lock);
    started++;
    pthread_cond_broadcast(&done_cond);
    while (!done)
        pthread_cond_wait(&done_cond, &lock);
    pthread_mutex_unlock(&lock);
}

NOINLINE static void *north(void *arg)
{
    wait_done();
    return arg;
}
NOINLINE static void *east(void *arg)
{
    wait_done();
    return arg;
}
NOINLINE static void *south(void *arg)
{
    wait_done();
    return arg;
}
NOINLINE static void *west(void *arg)
{
    wait_done();
    return arg;
}

static void *(*const routine[4])(void *) = { north, east, south, west };

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    pthread_t th[2];
    int n = rank % 3;
    for (int t = 0; t < n; t++) {
        pthread_create(&th[t], NULL, routine[(rank + t) % 4], NULL);
        pthread_mutex_lock(&lock);
        while (started <= t)
            pthread_cond_wait(&done_cond, &lock);
        pthread_mutex_unlock(&lock);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    pthread_mutex_lock(&lock);
    done = 1;
    pthread_cond_broadcast(&done_cond);
    pthread_mutex_unlock(&lock);
    for (int t = 0; t < n; t++)
        pthread_join(th[t], NULL);
    return 0;
}
