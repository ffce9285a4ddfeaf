/*
 * late_sigprof.c - a program that starts profiling itself after MPI_Init,
 * as a Python profiler does (mpi4py calls MPI_Init at its import): its own
 * SIGPROF handler and ITIMER_PROF every 5 ms of CPU time, over 1 s of CPU
 * time. Like CPython's, the handler only notes the signal where the main
 * thread will see it: a tick handled on another thread would be seen late
 * or, when the next one comes first, not at all. Prints
 *   own RANK TICKS ON_MAIN EXPECTED
 * TICKS: ticks handled, ON_MAIN: of them on the main thread, EXPECTED: the
 * ticks ITIMER_PROF owes for the process's CPU time while it ran.
 * MODE alone: the main thread computes alone (every tick is the main
 * thread's, as without hprof); worker: a thread started before the
 * profiler computes meanwhile in worker() (ticks go to whichever thread
 * runs; hprof must go on sampling both as it moves off SIGPROF).
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define TICK_US 5000

static volatile long ticks, on_main;

static void on_prof(int sig)
{
    (void)sig;
    ticks++;
    if (syscall(SYS_gettid) == getpid())
        on_main++;
}

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile int profiling_done;

__attribute__((noinline)) static void *worker(void *arg)
{
    volatile double x = 0;
    while (!profiling_done)
        x += 1;
    return arg;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int with_worker = argc > 1 && argv[1][0] == 'w';
    pthread_t helper;
    if (with_worker)
        pthread_create(&helper, NULL, worker, NULL);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    struct sigaction sa = { 0 };
    sa.sa_handler = on_prof;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_ONSTACK; /* CPython's flags */
    sigaction(SIGPROF, &sa, NULL);
    struct itimerval on = { { 0, TICK_US }, { 0, TICK_US } }, off = { { 0, 0 }, { 0, 0 } };
    double start = cpu_seconds();
    setitimer(ITIMER_PROF, &on, NULL);
    volatile double x = 0;
    while (cpu_seconds() - start < 1.0)
        x += 1;
    setitimer(ITIMER_PROF, &off, NULL);
    double spent = cpu_seconds() - start;
    profiling_done = 1;
    if (with_worker)
        pthread_join(helper, NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("own %d %ld %ld %ld\n", rank, ticks, on_main, (long)(spent * 1e6 / TICK_US));
    MPI_Finalize();
    return 0;
}
