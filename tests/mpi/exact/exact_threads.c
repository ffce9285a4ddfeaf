/*
 * exact_threads.c - 8 threads call functions measured exactly while they
 * are patched in (MPI_Init) and out (MPI_Finalize) (tests/mpi/exact_threads.sh).
 * The threads start before MPI_Init and run until MPI_Finalize returned,
 * calling work (which calls inner) as fast as they can and checking every
 * result. Calls are counted by phase: before MPI_Init returned (maybe
 * measured), between its return and the call of MPI_Finalize (all
 * measured), after (maybe). exact.expect.RANK says (check_exact.py):
 *
 *   range REGION LO HI   its visits, over all threads, lie in [LO, HI]
 *   wrong N              results that were not what they must be (0)
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))
#define NTHREADS 8

static volatile int phase; /* 0: before MPI_Init returned, 1: measured, 2: finalize, 3: stop */
static long calls[NTHREADS][3], inner_calls[NTHREADS][3], wrong[NTHREADS];
static int done_phase[NTHREADS]; /* the phase of each thread's last call that returned */

NOINLINE long inner(long i)
{
    return i * 3 + 1;
}

NOINLINE long work(long i, int t, int p)
{
    inner_calls[t][p]++;
    return inner(i) - i;
}

static void *run(void *arg)
{
    int t = (int)(long)arg;
    for (long i = 0;; i++) {
        int p = phase;
        if (p == 3)
            break;
        long r = work(i, t, p);
        calls[t][p]++;
        if (r != 2 * i + 1)
            wrong[t]++;
        __atomic_store_n(&done_phase[t], p, __ATOMIC_RELEASE);
    }
    return NULL;
}

static void compute(double seconds)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 < seconds);
}

int main(int argc, char **argv)
{
    pthread_t th[NTHREADS];
    for (long t = 0; t < NTHREADS; t++)
        pthread_create(&th[t], NULL, run, (void *)t);
    compute(0.05); /* they run before the patch */
    MPI_Init(&argc, &argv);
    __atomic_store_n(&phase, 1, __ATOMIC_SEQ_CST);
    compute(0.3);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    __atomic_store_n(&phase, 2, __ATOMIC_SEQ_CST);
    /* every call counted in phase 1 has returned before the measurement
     * ends: a thread descheduled between reading phase 1 and its call
     * would make it after MPI_Finalize (one call short) */
    for (int t = 0; t < NTHREADS; t++)
        while (__atomic_load_n(&done_phase[t], __ATOMIC_ACQUIRE) < 2)
            sched_yield();
    MPI_Finalize(); /* unpatched while they run */
    compute(0.05);
    __atomic_store_n(&phase, 3, __ATOMIC_SEQ_CST);
    long c[3] = { 0 }, ic[3] = { 0 }, bad = 0;
    for (int t = 0; t < NTHREADS; t++) {
        pthread_join(th[t], NULL);
        for (int p = 0; p < 3; p++) {
            c[p] += calls[t][p];
            ic[p] += inner_calls[t][p];
        }
        bad += wrong[t];
    }
    char name[64];
    snprintf(name, sizeof name, "exact.expect.%d", rank);
    FILE *f = fopen(name, "w");
    if (!f)
        return 1;
    /* a call counted in phase p began in phase p or before */
    fprintf(f, "range work %ld %ld\nrange inner %ld %ld\nwrong %ld\n", c[1], ic[0] + ic[1] + ic[2], c[1],
            ic[0] + ic[1] + ic[2], bad);
    fclose(f);
    printf("rank %d: calls %ld %ld %ld, wrong %ld\n", rank, c[0], c[1], c[2], bad);
    return bad != 0;
}
