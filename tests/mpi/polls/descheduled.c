/*
 * descheduled.c - polling loops that lose the CPU, and polling loops that
 * leave for computation (tests/mpi/polls_loops.sh).
 *
 * Phase "desched": rank 0 waits WAIT_MS for rank 1 in a tight MPI_Test
 * loop while a thread of its own spins on the same CPU (both pinned to
 * it): the waiting thread runs about half the time, descheduled in between.
 * Time lost to the scheduler inside a polling loop is split between its
 * polls and the loop's own instructions as its time on the CPU was, as a
 * tool timing each poll would find it on average (poll_run.h: the
 * thread's CPU clock): a tight loop is mostly polls, so rank 0's MPI time
 * there must be most of the wait (without the split it would be the polls'
 * share of the half the thread ran).
 *
 * Phase "chunked": rank 0 waits in a tight MPI_Test loop that calls
 * chunk() (CHUNK_US of computation) every CHUNK_EVERY polls. The chunks'
 * time on the CPU is computation, not MPI time: the polls' time is their
 * count times their mean, whatever lies between them (the time the thread
 * was descheduled, in a chunk or not, is split as the loop's time on the
 * CPU was: the check leaves it out).
 *
 * Phase "late": one LATE_US chunk at poll LATE_AT of a fresh polling run:
 * computation too.
 *
 * Prints check_csv.py expectations and `descheduled FRACTION` (how much
 * of the wait rank 0's thread was not running, from its CPU clock).
 */
#define _GNU_SOURCE 1
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>

#define WAIT_MS 60
#define CHUNK_US 500
#define CHUNK_EVERY 20000
#define LATE_US 12000
#define LATE_AT 20000

static volatile int hog_stop;
static long visits_desched, visits_chunked, visits_late;
static double chunk_spun, late_spun, chunk_ran, late_ran;

static double clock_s(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void spin_s(double s)
{
    double a = clock_s(CLOCK_MONOTONIC);
    while (clock_s(CLOCK_MONOTONIC) - a < s)
        ;
}

static int pin_to(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

static void *hog(void *arg)
{
    pin_to(*(int *)arg);
    while (!hog_stop)
        ;
    return NULL;
}

static __attribute__((noipa)) double desched_wait(MPI_Request *r, double *cpu)
{
    int flag = 0;
    double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    while (!flag) {
        MPI_Test(r, &flag, MPI_STATUS_IGNORE);
        visits_desched++;
    }
    *cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
    return clock_s(CLOCK_MONOTONIC) - t0;
}

/* us of computation; *spun its wall time, *ran its time on the CPU */
static __attribute__((noipa)) void chunk(long us, double *spun, double *ran)
{
    double a = clock_s(CLOCK_MONOTONIC), c = clock_s(CLOCK_THREAD_CPUTIME_ID);
    spin_s(us * 1e-6);
    *ran += clock_s(CLOCK_THREAD_CPUTIME_ID) - c;
    *spun += clock_s(CLOCK_MONOTONIC) - a;
}

static __attribute__((noipa)) double chunked_wait(MPI_Request *r)
{
    int flag = 0;
    double t0 = clock_s(CLOCK_MONOTONIC);
    for (long i = 1; !flag; i++) {
        MPI_Test(r, &flag, MPI_STATUS_IGNORE);
        visits_chunked++;
        if (i % CHUNK_EVERY == 0)
            chunk(CHUNK_US, &chunk_spun, &chunk_ran);
    }
    return clock_s(CLOCK_MONOTONIC) - t0;
}

static __attribute__((noipa)) double late_wait(MPI_Request *r)
{
    int flag = 0;
    double t0 = clock_s(CLOCK_MONOTONIC);
    for (long i = 1; !flag; i++) {
        MPI_Test(r, &flag, MPI_STATUS_IGNORE);
        visits_late++;
        if (i == LATE_AT)
            chunk(LATE_US, &late_spun, &late_ran);
    }
    return clock_s(CLOCK_MONOTONIC) - t0;
}

/* Rank 0 waits in phase (tag) for rank 1, which computes WAIT_MS first. */
static double waited_for(int rank, int tag, double (*wait)(MPI_Request *))
{
    int in = 0, out = 1;
    double waited = 0;
    MPI_Request r;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Irecv(&in, 1, MPI_INT, 1, tag, MPI_COMM_WORLD, &r);
        waited = wait(&r);
    } else if (rank == 1) {
        spin_s(WAIT_MS * 1e-3);
        MPI_Send(&out, 1, MPI_INT, 0, tag, MPI_COMM_WORLD);
    }
    return waited;
}

int main(int argc, char **argv)
{
    int rank, in = 0, out = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double waited = 0, cpu = 0, chunked = 0;
    MPI_Request r;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int cpu_id = sched_getcpu();
        pthread_t th;
        int pinned = cpu_id >= 0 && pin_to(cpu_id) == 0 && pthread_create(&th, NULL, hog, &cpu_id) == 0;
        MPI_Irecv(&in, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &r);
        waited = desched_wait(&r, &cpu);
        hog_stop = 1;
        if (pinned)
            pthread_join(th, NULL);
        printf("descheduled %.3f\n", pinned ? 1 - cpu / waited : 0);
    } else if (rank == 1) {
        spin_s(WAIT_MS * 1e-3);
        MPI_Send(&out, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    }
    chunked = waited_for(rank, 2, chunked_wait);
    double late = waited_for(rank, 3, late_wait);
    if (rank == 0) {
        printf("desched\tglob:*;desched_wait;MPI_Test\t0\tvisits\t==\t%ld\n", visits_desched);
        printf("desched_time\tglob:*;desched_wait;MPI_Test\t0\ttime\t>=\t%.6f\n", waited * 0.4);
        printf("desched_time\tglob:*;desched_wait;MPI_Test\t0\ttime\t<=\t%.6f\n", waited * 1.05 + 0.0005);
        printf("chunked\tglob:*;chunked_wait;MPI_Test\t0\tvisits\t==\t%ld\n", visits_chunked);
        printf("chunked_time\tglob:*;chunked_wait;MPI_Test\t0\ttime\t<=\t%.6f\n",
               chunked - 0.8 * chunk_ran + 0.001);
        printf("late\tglob:*;late_wait;MPI_Test\t0\tvisits\t==\t%ld\n", visits_late);
        printf("late_time\tglob:*;late_wait;MPI_Test\t0\ttime\t<=\t%.6f\n", late - 0.8 * late_ran + 0.001);
        printf("chunk_spun %.6f ran %.6f of %.6f\n", chunk_spun, chunk_ran, chunked);
        printf("late_spun %.6f ran %.6f of %.6f\n", late_spun, late_ran, late);
    }
    MPI_Finalize();
    return 0;
}
