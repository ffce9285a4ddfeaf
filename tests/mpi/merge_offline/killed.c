/*
 * killed.c - a job its scheduler ends with SIGTERM mid-run. Each rank does
 * 20 MPI_Allreduce, then calls MPI_Pack until it is killed, counting its
 * own calls in count.<rank> ("pid count", rewritten in place after every
 * call). SIGTERM is blocked from the start (so every thread MPI_Init
 * creates blocks it too: the kernel gives the signal to the main thread)
 * and let through only between a call's stored count and the next call:
 * the count in the file is the number of calls the rank made, exactly. The test (merge_offline.sh)
 * compares it with the visits of the merged fallback profiles.
 * usage: killed [N]   with N: N calls of MPI_Pack, then MPI_Finalize (the
 * same run merged by MPI_Finalize, to compare with).
 */
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void __attribute__((noinline)) pack_once(void)
{
    int in[4] = { 1, 2, 3, 4 }, pos = 0;
    char out[64];
    MPI_Pack(in, 4, MPI_INT, out, sizeof out, &pos, MPI_COMM_WORLD);
}

static void __attribute__((noinline)) spin(void)
{
    volatile double x = 1;
    for (int i = 0; i < 20000; i++)
        x = x * 1.0000001 + 1e-9;
}

int main(int argc, char **argv)
{
    sigset_t term;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    sigprocmask(SIG_BLOCK, &term, NULL);
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 20; i++) {
        int one = 1, sum;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    char name[64], line[64];
    snprintf(name, sizeof name, "count.%d", rank);
    int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        perror(name);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    long last = argc > 1 ? atol(argv[1]) : -1;
    for (long count = 0; count != last;) {
        pack_once();
        count++;
        int n = snprintf(line, sizeof line, "%ld %ld\n", (long)getpid(), count);
        if (pwrite(fd, line, (size_t)n, 0) != n)
            MPI_Abort(MPI_COMM_WORLD, 1);
        sigprocmask(SIG_UNBLOCK, &term, NULL);
        spin();
        sigprocmask(SIG_BLOCK, &term, NULL);
    }
    MPI_Finalize();
    return 0;
}
