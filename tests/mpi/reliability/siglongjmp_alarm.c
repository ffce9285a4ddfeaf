/* Issue 15 reproducer (copied from the adversarial round): a SIGALRM
 * handler that siglongjmps out of deep computation. It crashed under hprof
 * when the alarm reached an MPI helper thread instead of the main thread. */
#include <mpi.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
static sigjmp_buf sjb;
static volatile long cnt;
__attribute__((noinline)) double spin(int n)
{
    volatile double a = 0;
    for (long i = 0; i < 200000; i++)
        a += i * 1e-9;
    if (n > 0)
        return spin(n - 1) + a;
    return a;
}
void onalrm(int s)
{
    cnt++;
    siglongjmp(sjb, 1);
}
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double s = 0;
    signal(SIGALRM, onalrm);
    int N = argc > 1 ? atoi(argv[1]) : 50;
    for (int it = 0; it < N; it++) {
        if (sigsetjmp(sjb, 1) == 0) {
            struct itimerval tv = { { 0, 0 }, { 0, 3000 } };
            setitimer(ITIMER_REAL, &tv, 0);
            for (;;)
                s += spin(30);
        }
        double x = 1, y;
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        s = y;
    }
    printf("s=%.1f cnt=%ld\n", s, cnt);
    MPI_Finalize();
    return 0;
}
