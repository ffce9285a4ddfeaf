/*
 * in_flight_alloc.c - does hprof's signal handler allocate while it finds
 * the path of an MPI call under way?
 *
 * Rank 0 waits in MPI_Recv, called from a function no walk has passed yet
 * (wait_for_peer), so a sample landing in the wait finds no recipe for it.
 * Rank 1 sends only once rank 0 has spent WAIT_CPU_NS of CPU time in the
 * wait (read from /proc: its progress loop polls), so samples do land.
 * Meanwhile the program's own malloc, calloc and realloc (forwarding to
 * glibc's) count the calls made on rank 0's main thread while a sampling
 * signal is blocked there: inside a handler. A handler that allocates
 * deadlocks when its signal lands in the program's malloc.
 * Prints "handler allocations RANK N" and "wait cpu RANK SECONDS".
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define WAIT_CPU_NS 300000000ll /* 300 samples at 1000 Hz */
#define WAIT_WALL_S 30.0        /* the send goes then at the latest */

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static volatile int watching;
static pid_t main_tid;
static volatile long handler_allocations;

/* A sampling signal is blocked on this thread: the handler runs (hprof
 * blocks no signal on the main thread while MPI waits). */
static void note_allocation(void)
{
    if (!watching || (pid_t)syscall(SYS_gettid) != main_tid)
        return;
    sigset_t now;
    if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &now, 8) != 0)
        return;
    int in_handler = sigismember(&now, SIGPROF) == 1;
    for (int s = SIGRTMIN; s <= SIGRTMAX && !in_handler; s++)
        in_handler = sigismember(&now, s) == 1;
    if (in_handler)
        __atomic_fetch_add(&handler_allocations, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t n)
{
    note_allocation();
    return __libc_malloc(n);
}

void *calloc(size_t k, size_t n)
{
    note_allocation();
    return __libc_calloc(k, n);
}

void *realloc(void *p, size_t n)
{
    note_allocation();
    return __libc_realloc(p, n);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static long long cpu_ns_of(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    unsigned long long utime = 0, stime = 0;
    /* after "(comm)": state and 10 fields, then utime and stime */
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
        return -1;
    return (long long)((utime + stime) * (1000000000ull / (unsigned long long)sysconf(_SC_CLK_TCK)));
}

__attribute__((noinline)) static double wait_for_peer(void)
{
    int got = 0;
    struct timespec a, b;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    MPI_Recv(&got, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    return (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
}

static void send_when_spent(pid_t peer)
{
    long long start = cpu_ns_of(peer), spent = 0;
    double t0 = now();
    while (start >= 0 && now() - t0 < WAIT_WALL_S) {
        spent = cpu_ns_of(peer) - start;
        if (spent >= WAIT_CPU_NS)
            break;
        usleep(10000);
    }
    int one = 1;
    MPI_Send(&one, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int pid = (int)getpid();
    MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        main_tid = (pid_t)syscall(SYS_gettid);
        watching = 1;
        double cpu = wait_for_peer();
        watching = 0;
        printf("handler allocations %d %ld\n", rank, handler_allocations);
        printf("wait cpu %d %.3f\n", rank, cpu);
    } else if (rank == 1) {
        send_when_spent((pid_t)pid);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
