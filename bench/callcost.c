/*
 * callcost.c - cost of one wrapped MPI call, and of one sample, at a given
 * stack depth. One rank.
 *
 *   callcost calls DEPTH N     N x MPI_Barrier(MPI_COMM_SELF) at depth DEPTH;
 *                              prints `ns_per_call X`
 *   callcost polls DEPTH N     N x MPI_Test at depth DEPTH on a receive that
 *                              never completes (a polling loop: every call
 *                              completes nothing); prints `ns_per_call X`
 *   callcost sites DEPTH N     N x (MPI_Barrier(MPI_COMM_SELF), MPI_Test on
 *                              that receive, MPI_Iprobe finding nothing): three
 *                              call sites of one function in turn; prints
 *                              `ns_per_call X` (per MPI call)
 *   callcost mempolls DEPTH N  N x (MPI_Testany on that receive, then a random
 *                              update of a 64 MiB table): hpcc's MPIRandomAccess
 *                              loop, whose own work misses the cache; prints
 *                              `ns_per_call X` (per iteration)
 *   callcost floor_mempolls DEPTH N  like mempolls with one time-stamp read
 *                              (rdtsc) per poll summed by the program: what
 *                              reading the clock at every poll costs there
 *   callcost floor_calls DEPTH N  like calls, with two time-stamp reads (rdtsc)
 *                              around each call and their difference summed
 *                              by the program itself: the floor of any tool
 *                              that times every call; prints `ns_per_call X`
 *   callcost spin DEPTH ITERS  a fixed amount of arithmetic at depth DEPTH;
 *                              prints `seconds X`
 *   callcost floor DEPTH ITERS HZ  like spin, under a sampling timer of its own
 *                              (CLOCK_MONOTONIC, SIGPROF to this thread, as
 *                              hprof's) whose handler only counts: the cost of
 *                              the signal itself on this machine, the floor of
 *                              any sampler; prints `seconds X`, and the signal
 *                              count on stderr as `N samples counted`
 *   callcost threads DEPTH N T T threads (MPI_THREAD_MULTIPLE) each make N calls at
 *                              once; prints `ns_per_call X`, the median over
 *                              threads of each thread's CPU time per call (CPU
 *                              time, so that 4 threads on 2 cores still compare)
 * Per-call figures are the calling thread's CPU time (on a loaded machine
 * the wall clock also counts the time other processes hold the core).
 * With CALLCOST_BATCHES=B (calls, polls, sites, floor_calls), the N calls
 * are made in B batches, each followed by reference_loop.h's loop, and a
 * line "batch NS REF_NS" is printed for each: the calls' cost a call in
 * the batch and the loop's an iteration after it.
 * Run the same binary with and without hprof (and with sampling at different
 * rates) and compare: the difference is hprof's cost.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "reference_loop.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile double sink;

static __attribute__((noinline)) void leaf_calls(long n)
{
    for (long i = 0; i < n; i++)
        MPI_Barrier(MPI_COMM_SELF);
}

static volatile unsigned long long tsc_sum;

static __attribute__((noinline)) void leaf_floor_calls(long n)
{
    unsigned long long sum = 0;
    for (long i = 0; i < n; i++) {
        unsigned long long t0 = __builtin_ia32_rdtsc();
        MPI_Barrier(MPI_COMM_SELF);
        sum += __builtin_ia32_rdtsc() - t0;
    }
    tsc_sum += sum;
}

static __attribute__((noinline)) void leaf_polls(long n)
{
    MPI_Request r;
    int buf, flag = 0;
    MPI_Irecv(&buf, 1, MPI_INT, 0, 4711, MPI_COMM_SELF, &r); /* nobody sends it */
    for (long i = 0; i < n; i++)
        MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    MPI_Cancel(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
}

#define MEM_TABLE_LOG 23 /* 2^23 words: 64 MiB, far beyond the caches */
static uint64_t *mem_table;

static __attribute__((noinline)) void leaf_mempolls(long n, int tsc)
{
    MPI_Request r;
    int buf, idx, flag = 0;
    uint64_t ran = 1, sum = 0;
    MPI_Irecv(&buf, 1, MPI_INT, 0, 4711, MPI_COMM_SELF, &r); /* nobody sends it */
    for (long i = 0; i < n; i++) {
        MPI_Testany(1, &r, &idx, &flag, MPI_STATUS_IGNORE);
        if (tsc)
            sum += __rdtsc();
        ran = (ran << 1) ^ ((int64_t)ran < 0 ? 7 : 0);
        mem_table[ran & ((1u << MEM_TABLE_LOG) - 1)] ^= ran;
    }
    tsc_sum += sum;
    MPI_Cancel(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
}

static __attribute__((noinline)) void leaf_sites(long n)
{
    MPI_Request r;
    int buf, flag = 0;
    MPI_Irecv(&buf, 1, MPI_INT, 0, 4711, MPI_COMM_SELF, &r);
    for (long i = 0; i < n; i++) {
        MPI_Barrier(MPI_COMM_SELF);
        MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        MPI_Iprobe(0, 4712, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
    }
    MPI_Cancel(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
}

static __attribute__((noinline)) void leaf_spin(long iters)
{
    double x = 1.0;
    for (long i = 0; i < iters; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

enum {
    CALLS,
    SPIN,
    POLLS,
    SITES,
    FLOOR_CALLS,
    MEMPOLLS,
    FLOOR_MEMPOLLS
};

/* Recursion to the requested depth; the volatile keeps frames real. */
static __attribute__((noinline)) void descend(int depth, int mode, long n)
{
    volatile int guard = depth;
    if (guard > 1) {
        descend(depth - 1, mode, n);
        __asm__ volatile("" ::: "memory"); /* not a tail call: one frame per level */
    } else if (mode == SPIN) {
        leaf_spin(n);
    } else if (mode == POLLS) {
        leaf_polls(n);
    } else if (mode == SITES) {
        leaf_sites(n);
    } else if (mode == FLOOR_CALLS) {
        leaf_floor_calls(n);
    } else if (mode == MEMPOLLS || mode == FLOOR_MEMPOLLS) {
        leaf_mempolls(n, mode == FLOOR_MEMPOLLS);
    } else {
        leaf_calls(n);
    }
}

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct job {
    int depth;
    long n;
    double ns;
} job;

static void *thread_calls(void *arg)
{
    job *j = arg;
    descend(j->depth, CALLS, j->n / 10);
    double t = thread_cpu();
    descend(j->depth, CALLS, j->n);
    j->ns = (thread_cpu() - t) * 1e9 / (double)j->n;
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static volatile long floor_signals;

static void floor_handler(int sig)
{
    (void)sig;
    floor_signals++;
}

static void floor_timer_start(int hz)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = floor_handler;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGPROF, &sa, NULL);
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = SIGPROF;
    ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    timer_t timer;
    if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0)
        return;
    long period = 1000000000L / hz;
    struct itimerspec its = { { 0, period }, { 0, period } };
    timer_settime(timer, 0, &its, NULL);
}

static int run_threads(int depth, long n, int nthreads)
{
    int provided;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
    pthread_t th[64];
    job jobs[64];
    double ns[64];
    for (int i = 0; i < nthreads; i++) {
        jobs[i] = (job){ depth, n, 0 };
        pthread_create(&th[i], NULL, thread_calls, &jobs[i]);
    }
    for (int i = 0; i < nthreads; i++) {
        pthread_join(th[i], NULL);
        ns[i] = jobs[i].ns;
    }
    qsort(ns, (size_t)nthreads, sizeof ns[0], cmp_double);
    printf("ns_per_call %.2f\n", ns[nthreads / 2]);
    MPI_Finalize();
    return 0;
}

#define MAX_BATCHES 1000

/* CALLCOST_BATCHES, for the modes that print a cost a call; 1: none. */
static int batches(int mode)
{
    const char *v = getenv("CALLCOST_BATCHES");
    int nb = v ? atoi(v) : 1;
    if (mode != CALLS && mode != POLLS && mode != SITES && mode != FLOOR_CALLS)
        return 1;
    return nb > 1 && nb <= MAX_BATCHES ? nb : 1;
}

/* The calls in nb batches, each followed by the reference loop. */
static int run_batches(int depth, int mode, long n, int nb)
{
    static double batch_ns[MAX_BATCHES], ref_ns[MAX_BATCHES];
    long per = n / nb;
    double t = 0;
    for (int b = 0; b < nb; b++) {
        double t0 = thread_cpu();
        descend(depth, mode, per);
        double t1 = thread_cpu();
        sink += (double)reference_loop(REFERENCE_ITERS);
        double t2 = thread_cpu();
        t += t1 - t0;
        batch_ns[b] = (t1 - t0) * 1e9 / (double)per / (mode == SITES ? 3 : 1);
        ref_ns[b] = (t2 - t1) * 1e9 / REFERENCE_ITERS;
    }
    printf("ns_per_call %.2f\n", t * 1e9 / (double)(per * nb) / (mode == SITES ? 3 : 1));
    for (int b = 0; b < nb; b++)
        printf("batch %.2f %.3f\n", batch_ns[b], ref_ns[b]);
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "threads") == 0) {
        int nthreads = atoi(argv[4]);
        return run_threads(atoi(argv[2]), atol(argv[3]), nthreads < 1 || nthreads > 64 ? 1 : nthreads);
    }
    int floor_hz = argc == 5 && strcmp(argv[1], "floor") == 0 ? atoi(argv[4]) : 0;
    if (argc != 4 && !(floor_hz > 0 && floor_hz <= 100000)) {
        fprintf(stderr, "usage: callcost calls|polls|sites|mempolls|floor_calls|floor_mempolls|spin DEPTH N "
                        "| callcost floor DEPTH N HZ | callcost threads DEPTH N T\n");
        return 2;
    }
    int spin = strcmp(argv[1], "spin") == 0 || floor_hz;
    int mode = spin                                     ? SPIN
               : strcmp(argv[1], "polls") == 0          ? POLLS
               : strcmp(argv[1], "sites") == 0          ? SITES
               : strcmp(argv[1], "floor_calls") == 0    ? FLOOR_CALLS
               : strcmp(argv[1], "mempolls") == 0       ? MEMPOLLS
               : strcmp(argv[1], "floor_mempolls") == 0 ? FLOOR_MEMPOLLS
                                                        : CALLS;
    int depth = atoi(argv[2]);
    long n = atol(argv[3]);
    MPI_Init(&argc, &argv);
    if (mode == MEMPOLLS || mode == FLOOR_MEMPOLLS) {
        mem_table = malloc(sizeof(uint64_t) << MEM_TABLE_LOG);
        if (!mem_table)
            return 1;
        memset(mem_table, 1, sizeof(uint64_t) << MEM_TABLE_LOG); /* its pages faulted in before the timing */
    }
    if (floor_hz)
        floor_timer_start(floor_hz);
    descend(depth, mode, n / 10); /* warm-up: caches, page faults */
    /* calls on the thread's CPU clock: on a loaded machine the wall clock
     * also counts the time other processes hold the core */
    int nb = batches(mode);
    if (nb > 1)
        return run_batches(depth, mode, n, nb);
    double t = spin ? now() : thread_cpu();
    descend(depth, mode, n);
    t = (spin ? now() : thread_cpu()) - t;
    if (floor_hz)
        fprintf(stderr, "%ld samples counted\n", floor_signals);
    if (spin)
        printf("seconds %.9f\n", t);
    else
        printf("ns_per_call %.2f\n", t * 1e9 / (double)n / (mode == SITES ? 3 : 1));
    MPI_Finalize();
    return 0;
}
