/*
 * dying.c - ways for a rank (or all) to end without MPI_Finalize.
 *   dying exit       every rank exits with status 7 without MPI_Finalize
 *   dying abort      rank 1 calls MPI_Abort(…, 5); the others wait in a barrier
 *   dying segv       rank 1 dereferences NULL; the others wait in a barrier
 *   dying kill       rank 1 SIGKILLs itself; the others wait in a barrier
 *   dying term       every rank SIGTERMs itself (as a launcher's kill would)
 *   dying fork       every rank forks a child that makes MPI-free work and
 *                    exits, and runs system("true"); then finalizes normally
 * Each rank first does some MPI work in `work` so the profile has content.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static __attribute__((noinline)) void work(void)
{
    double x = 1, y;
    for (int i = 0; i < 50; i++)
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    work();
    const char *how = argc > 1 ? argv[1] : "exit";
    if (strcmp(how, "exit") == 0)
        exit(7);
    if (strcmp(how, "fork") == 0) {
        pid_t pid = fork();
        if (pid == 0) {
            for (volatile long i = 0; i < 10000000; i++)
                ;
            _exit(0);
        }
        waitpid(pid, NULL, 0);
        pid = fork();
        if (pid == 0)
            exit(0); /* atexit handlers run in the child: it must not write */
        waitpid(pid, NULL, 0);
        if (system("true") != 0)
            return 1;
        MPI_Finalize();
        return 0;
    }
    if (strcmp(how, "term") == 0)
        raise(SIGTERM);
    if (rank == 1) {
        if (strcmp(how, "abort") == 0)
            MPI_Abort(MPI_COMM_WORLD, 5);
        if (strcmp(how, "segv") == 0)
            *(volatile int *)NULL = 1;
        if (strcmp(how, "kill") == 0)
            kill(getpid(), SIGKILL);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
