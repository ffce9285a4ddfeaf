/*
 * signals.c - a program with its own signal handling, installed after
 * MPI_Init (when hprof already samples):
 *   signals prof    SIGPROF handler + ITIMER_PROF at 50 Hz for ~0.5 s of CPU;
 *                   prints `own RANK COUNT` (about 25 expected)
 *   signals segv    a SIGSEGV handler that prints and exits with status 3,
 *                   then a NULL dereference
 *   signals blocked SIGPROF blocked in a worker thread that computes, and
 *                   before MPI_Finalize in the main thread
 *   signals early   MPI_Initialized and MPI_Get_version before MPI_Init,
 *                   MPI_Finalized after MPI_Finalize
 */
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile long own;
static void on_prof(int sig)
{
    own++;
}
static void on_segv(int sig)
{
    static const char msg[] = "caught SIGSEGV\n";
    ssize_t n = write(1, msg, sizeof msg - 1);
    (void)n;
    _exit(3);
}

static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static __attribute__((noinline)) void burn(double seconds)
{
    double end = cpu() + seconds;
    while (cpu() < end)
        ;
}

static void *blocked_worker(void *arg)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPROF);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    burn(0.2);
    return arg;
}

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "prof";
    int flag = -1, version = 0, sub = 0;
    if (strcmp(how, "early") == 0) {
        MPI_Initialized(&flag);
        MPI_Get_version(&version, &sub);
        printf("before init: initialized %d version %d.%d\n", flag, version, sub);
    }
    int rank, provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (strcmp(how, "prof") == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_prof;
        sa.sa_flags = SA_RESTART;
        sigaction(SIGPROF, &sa, NULL);
        struct itimerval it = { { 0, 20000 }, { 0, 20000 } };
        setitimer(ITIMER_PROF, &it, NULL);
        burn(0.5);
        struct itimerval off = { { 0, 0 }, { 0, 0 } };
        setitimer(ITIMER_PROF, &off, NULL);
        printf("own %d %ld\n", rank, own);
    } else if (strcmp(how, "segv") == 0) {
        signal(SIGSEGV, on_segv);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            *(volatile int *)NULL = 1;
        /* the launcher ends this rank once rank 0 has exited; racing it
         * into MPI_Finalize with a dead peer, MPICH's rank 1 under hprof once
         * exited 1 first (in a CI simulation), and that was the job's status */
        sleep(5);
    } else if (strcmp(how, "blocked") == 0) {
        pthread_t th;
        pthread_create(&th, NULL, blocked_worker, NULL);
        pthread_join(th, NULL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGPROF);
        pthread_sigmask(SIG_BLOCK, &set, NULL);
        burn(0.1);
        printf("blocked %d done\n", rank);
    }
    MPI_Finalize();
    if (strcmp(how, "early") == 0) {
        MPI_Finalized(&flag);
        printf("after finalize: finalized %d\n", flag);
    }
    return 0;
}
