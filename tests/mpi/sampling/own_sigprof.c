/*
 * own_sigprof.c - a program that profiles itself with SIGPROF and
 * ITIMER_PROF (as gprof's -pg does). Under hprof its handler must keep
 * receiving its signals. Prints `own RANK COUNT`.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static volatile long own_signals;
static void on_prof(int sig)
{
    own_signals++;
}

/* The process's CPU time: ITIMER_PROF ticks on it, so on a loaded machine
 * a wall-clock amount of work could see too few of its signals. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static __attribute__((noinline)) void work(double seconds)
{
    double end = now() + seconds;
    while (now() < end)
        ;
}

int main(int argc, char **argv)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_prof;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGPROF, &sa, NULL);
    struct itimerval it = { { 0, 10000 }, { 0, 10000 } };
    setitimer(ITIMER_PROF, &it, NULL);
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    work(0.5);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("own %d %ld\n", rank, own_signals);
    MPI_Finalize();
    return 0;
}
