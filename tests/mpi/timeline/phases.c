/*
 * phases.c - a run whose ranks change roles at known times, for the
 * timeline's known-answer test.
 *   phases ITER SLOW_FROM FACTOR STEP_MS
 * Each of ITER iterations computes STEP_MS (busy, on the wall clock), rank 1
 * FACTOR times as long from iteration SLOW_FROM on, then MPI_Allreduce. Then
 * MPI_Pcontrol(2) and a barrier phase: rank 0 computes 30 steps while the
 * others wait in MPI_Barrier. Rank 1 prints `slow_from SECONDS` and rank 0
 * `barrier_from SECONDS`: when that began, counted from just before
 * MPI_Init (where hprof's timeline starts).
 * With PHASES_INIT_DELAY_MS=D in the environment, rank 1 (by the
 * launcher's variables) enters MPI_Init D ms after the others, and all
 * ranks meet in a barrier before MPI_Pcontrol(1); every rank prints
 * `init_entry RANK SECONDS` (CLOCK_MONOTONIC, one clock on one host).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile double sink;

static __attribute__((noinline)) void compute(double seconds)
{
    double end = now() + seconds, x = 0;
    while (now() < end)
        for (int i = 0; i < 1000; i++)
            x += i * 1e-9;
    sink = x;
}

/* The rank before MPI_Init, from Open MPI's or MPICH's launcher. */
static int launcher_rank(void)
{
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    if (!r)
        r = getenv("PMI_RANK");
    return r ? atoi(r) : 0;
}

int main(int argc, char **argv)
{
    const char *delay = getenv("PHASES_INIT_DELAY_MS");
    if (delay && launcher_rank() == 1) {
        struct timespec ts = { atoi(delay) / 1000, (long)(atoi(delay) % 1000) * 1000000L };
        nanosleep(&ts, NULL);
    }
    double t0 = now();
    MPI_Init(&argc, &argv);
    int rank, iter = argc > 1 ? atoi(argv[1]) : 100, slow_from = argc > 2 ? atoi(argv[2]) : 50;
    double factor = argc > 3 ? atof(argv[3]) : 3, step = (argc > 4 ? atof(argv[4]) : 10) * 1e-3;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (delay) {
        printf("init_entry %d %.6f\n", rank, t0);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Pcontrol(1);
    for (int i = 0; i < iter; i++) {
        if (rank == 1 && i == slow_from)
            printf("slow_from %.6f\n", now() - t0);
        compute(rank == 1 && i >= slow_from ? factor * step : step);
        double x = i, y;
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Pcontrol(2);
    if (rank == 0) {
        printf("barrier_from %.6f\n", now() - t0);
        compute(30 * step);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
