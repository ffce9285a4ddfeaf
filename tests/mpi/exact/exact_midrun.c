/*
 * exact_midrun.c - a function patched in mid-run (tests/mpi/exact_midrun.sh):
 * HPROF_SELECT='mpi_path & name(...)' takes exchange, which calls
 * MPI_Allreduce, once the run has shown it on a call path to MPI (hprof
 * evaluates such a selection again every second); crunch, which makes no
 * MPI call, never. Phase A runs 2.5 s, phase B after it: its calls of
 * exchange all come after the patch. exact.expect.RANK (check_exact.py):
 *
 *   range exchange B A+B   its visits: at least phase B's calls
 *   notvisits crunch N
 *   since exchange S       patched in no earlier than S seconds in
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static long n_exchange, n_crunch;
static volatile double sink;

NOINLINE double exchange(double x)
{
    double r;
    n_exchange++;
    MPI_Allreduce(&x, &r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return r;
}

NOINLINE double crunch(double x)
{
    n_crunch++;
    for (int k = 0; k < 20000; k++)
        x = x * 0.999 + 1;
    return x;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, go = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double t0 = now();
    while (go) { /* phase A: every rank stops together */
        sink += exchange(crunch(sink));
        int mine = now() - t0 < 2.5, all;
        MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        go = all;
    }
    long a = n_exchange;
    for (int i = 0; i < 200; i++) /* phase B */
        sink += exchange(crunch(sink));
    char name[64];
    snprintf(name, sizeof name, "exact.expect.%d", rank);
    FILE *f = fopen(name, "w");
    if (!f)
        return 1;
    fprintf(f, "range exchange %ld %ld\nnotvisits crunch %ld\nsince exchange 0.9\n", n_exchange - a,
            n_exchange, n_crunch);
    fclose(f);
    MPI_Finalize();
    return 0;
}
