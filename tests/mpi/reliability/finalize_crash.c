/* Issue 15 reproducer (copied from the adversarial round): recursion whose
 * epilogues follow DW_CFA_restore_state, MPI calls at every depth, a
 * compute thread. Crashed in MPI_Finalize at 1 kHz, 4 ranks, 20 s. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static int rank, size;
static volatile int stop;
__attribute__((noinline)) double rec(int d, int kind)
{
    if (d > 0)
        return rec(d - 1, kind) + 0.0;
    double x = kind, y = 0;
    MPI_Request r;
    MPI_Status st;
    switch (kind % 4) {
    case 0: MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
    case 1:
        MPI_Isend(&x, 1, MPI_DOUBLE, 0, kind, MPI_COMM_SELF, &r);
        MPI_Recv(&y, 1, MPI_DOUBLE, 0, kind, MPI_COMM_SELF, &st);
        MPI_Wait(&r, &st);
        break;
    case 2:
        MPI_Bcast(&x, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        y = x;
        break;
    default: {
        volatile double a = 0;
        for (int i = 0; i < 20000; i++)
            a += i;
        y = a;
    }
    }
    return y;
}
void *bg(void *a)
{
    unsigned s = 42;
    double t = 0;
    while (!stop) {
        t += rec(rand_r(&s) % 20, 1);
    }
    return 0;
}
int main(int argc, char **argv)
{
    int p;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double secs = atof(argv[1]);
    pthread_t t;
    pthread_create(&t, 0, bg, 0);
    double t0 = MPI_Wtime(), s = 0;
    long it = 0;
    int done = 0;
    srand(rank + 1);
    while (!done) {
        int d = (it * 7919) % 30;
        s += rec(d, (int)(it % 4 == 1 ? 0 : it % 4));
        it++;
        if (it % 64 == 0) {
            done = MPI_Wtime() - t0 > secs;
            MPI_Bcast(&done, 1, MPI_INT, 0, MPI_COMM_WORLD);
        }
    }
    stop = 1;
    pthread_join(t, 0);
    if (!rank)
        printf("done\n");
    MPI_Finalize();
    return 0;
}
