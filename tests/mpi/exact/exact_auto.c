/*
 * exact_auto.c - HPROF_SELECT=auto (tests/mpi/exact_auto.sh): solver calls
 * MPI_Allreduce (on a call path to MPI, a few thousand calls a second at
 * most), tiny is called millions of times a second from work (most of the
 * sampled time: taken on trial, then dropped, its cost far over 1%), cold
 * runs once at the start. Phase A runs 3 s, phase B 1.5 s more (every rank
 * stops together). Written per rank:
 *
 *   exact.expect.RANK        range solver B A+B, notvisits cold N, since solver 0.9
 *   exact_auto.times.RANK    the time of each call of solver (s since MPI_Init's entry)
 *   exact_auto.work.RANK     work's CPU time a call, the median of its calls before
 *                            hprof could choose (the first 0.5 s) and of phase B's
 *                            (after; a function taken on trial late costs a
 *                            quarter of a second of it at most)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))
#define TINY_CALLS 20000

static long n_solver, n_cold, ntimes;
static double *times, t0;
static volatile double sink;

static double now(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

NOINLINE double tiny(double x)
{
    __asm__ volatile("" : "+x"(x));
    return x * 0.999 + 1;
}

NOINLINE double work(double x)
{
    for (int k = 0; k < TINY_CALLS; k++)
        x = tiny(x);
    return x;
}

NOINLINE double solver(double x)
{
    double r;
    if (ntimes < 1000000)
        times[ntimes++] = now(CLOCK_MONOTONIC) - t0;
    n_solver++;
    for (int k = 0; k < 2000; k++)
        x = x * 0.9999 + 0.5;
    MPI_Allreduce(&x, &r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return r;
}

NOINLINE double cold(double x)
{
    n_cold++;
    return x + 1;
}

#define MAXCALLS 1000000
static double early[MAXCALLS], late[MAXCALLS];
static long n_early, n_late;

/* One iteration; its work's CPU time into v[*n] (none: v NULL). */
NOINLINE void step(double *v, long *n)
{
    double c = now(CLOCK_THREAD_CPUTIME_ID);
    sink += work(sink);
    if (v && *n < MAXCALLS)
        v[(*n)++] = now(CLOCK_THREAD_CPUTIME_ID) - c;
    sink = solver(sink) * 1e-9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, long n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n ? v[n / 2] : 0;
}

/* Runs iterations until every rank has passed t_end (s since t0). */
static void phase(double t_end, double t_early, double *v, long *n)
{
    for (int go = 1; go;) {
        double t = now(CLOCK_MONOTONIC) - t0;
        step(t < t_early ? early : v, t < t_early ? &n_early : n);
        int mine = t < t_end, all;
        MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        go = all;
    }
}

int main(int argc, char **argv)
{
    times = malloc(1000000 * sizeof *times);
    t0 = now(CLOCK_MONOTONIC);
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    sink = cold(sink);
    phase(3.0, 0.5, NULL, NULL); /* phase A */
    long a = n_solver;
    phase(4.5, 0, late, &n_late); /* phase B */
    char name[64];
    snprintf(name, sizeof name, "exact.expect.%d", rank);
    FILE *f = fopen(name, "w");
    if (!f)
        return 1;
    fprintf(f, "range solver %ld %ld\nnotvisits cold %ld\nsince solver 0.9\n", n_solver - a, n_solver,
            n_cold);
    fclose(f);
    snprintf(name, sizeof name, "exact_auto.times.%d", rank);
    if (!(f = fopen(name, "w")))
        return 1;
    for (long i = 0; i < ntimes; i++)
        fprintf(f, "%.9f\n", times[i]);
    fclose(f);
    snprintf(name, sizeof name, "exact_auto.work.%d", rank);
    if (!(f = fopen(name, "w")))
        return 1;
    fprintf(f, "%.9f %ld %.9f %ld\n", median(early, n_early), n_early, median(late, n_late), n_late);
    fclose(f);
    MPI_Finalize();
    return 0;
}
