/*
 * stopped.c - a job that hangs, or aborts, in MPI calls (issue 37.5).
 * usage: stopped hang | abort
 * hang: ranks 0..P-2 wait in MPI_Barrier (from wait_all), rank P-1 in
 * MPI_Recv from rank P-2, tag 7, which never sends (from wait_for_peer),
 * on a communicator whose ranks are the world's in reverse (P-2 is its
 * rank 1: a snapshot must name the world rank);
 * each rank writes entered.<rank> ("pid seconds", CLOCK_MONOTONIC) just
 * before its call, for the test to stop it in there.
 * abort: after one barrier, rank 1 calls MPI_Abort(5) from give_up; the
 * others wait in MPI_Barrier.
 * thread: MPI_THREAD_MULTIPLE; each rank's second thread waits in MPI_Recv
 * for a message no one sends (from wait_in_thread, noting entered.<rank>)
 * while its main thread computes for good (spin): the call under way is
 * on a thread the kill does not land on.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The clock is read last before the call, after the file is made: the
 * test takes the time since as the least the call can have waited. The
 * file appears whole (renamed once written). */
static void entered(int rank)
{
    char name[32], part[32];
    snprintf(name, sizeof name, "entered.%d", rank);
    snprintf(part, sizeof part, ".entered.%d", rank);
    FILE *f = fopen(part, "w");
    if (!f)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    fprintf(f, "%ld %.6f\n", (long)getpid(), ts.tv_sec + ts.tv_nsec * 1e-9);
    if (fclose(f) == 0)
        rename(part, name);
}

static void __attribute__((noinline)) wait_all(int rank)
{
    entered(rank);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void __attribute__((noinline)) wait_for_peer(int rank, int from, MPI_Comm comm)
{
    int x;
    entered(rank);
    MPI_Recv(&x, 1, MPI_INT, from, 7, comm, MPI_STATUS_IGNORE);
}

static int my_rank;

static void *__attribute__((noinline)) wait_in_thread(void *unused)
{
    (void)unused;
    int x;
    entered(my_rank);
    MPI_Recv(&x, 1, MPI_INT, my_rank, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return NULL;
}

static void __attribute__((noinline)) spin(void)
{
    for (volatile unsigned long i = 0;; i++)
        ;
}

static void __attribute__((noinline)) give_up(void)
{
    MPI_Abort(MPI_COMM_WORLD, 5);
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int abort_it = argc > 1 && strcmp(argv[1], "abort") == 0;
    if (argc > 1 && strcmp(argv[1], "thread") == 0) {
        pthread_t t;
        my_rank = rank;
        if (provided < MPI_THREAD_MULTIPLE || pthread_create(&t, NULL, wait_in_thread, NULL) != 0)
            MPI_Abort(MPI_COMM_WORLD, 3);
        spin();
    } else if (abort_it) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1)
            give_up();
        wait_all(rank);
    } else {
        MPI_Comm reversed;
        MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &reversed);
        if (rank == size - 1)
            wait_for_peer(rank, 1, reversed); /* world rank size - 2 */
        else
            wait_all(rank);
    }
    MPI_Finalize();
    return 0;
}
