/*
 * exact_c.c - functions measured exactly (tests/mpi/exact_c.sh). Built with
 * -fpatchable-function-entry=18,16; HPROFTEST_EXACT names solve, step, rec,
 * jumper and deep; leaf is not selected. Each rank counts its own calls
 * and times its own top-level calls (MPI_Wtime), and writes what it saw
 * to exact.expect.RANK:
 *
 *   visits REGION N     calls of REGION on this rank
 *   time REGION S SLACK seconds in its outermost calls, as the program saw them,
 *                       SLACK of them in calls the thread was switched out in
 *   bound REGION S      seconds of a loop whose calls of REGION end by longjmp
 *   outside REGION S    of which the program computed S right after the
 *                       jump, outside every selected function
 *
 * The work differs by rank (rank r: 100 + 10 r steps), so that a profile
 * that mixed ranks up fails.
 */
#define _GNU_SOURCE /* RUSAGE_THREAD (timed_call.h) */
#include <mpi.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#include "timed_call.h"

#define NOINLINE __attribute__((noinline))

static long n_solve, n_step, n_leaf, n_rec, n_jumper, n_deep;
static volatile double sink;
static jmp_buf env;

NOINLINE double leaf(double x)
{
    n_leaf++;
    return x * 1.000001 + 1.0;
}

/* computation the sampler sees, and an MPI call every tenth step */
NOINLINE double step(int i)
{
    n_step++;
    double s = 0;
    for (int k = 0; k < 200; k++)
        s = leaf(s);
    for (int k = 0; k < 100000; k++)
        sink += k * 0.5;
    if (i % 10 == 0 && i < 100) { /* as often on every rank */
        double r;
        MPI_Allreduce(&s, &r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        s = r;
    }
    return s;
}

NOINLINE double solve(int iters)
{
    n_solve++;
    double s = 0;
    for (int i = 0; i < iters; i++)
        s += step(i);
    return s;
}

/* a real recursion: its frame (and the volatile in it) stays while the
 * deeper ones run, so the compiler cannot make a loop of it */
NOINLINE long rec(int depth)
{
    volatile int here = depth % 3;
    n_rec++;
    if (depth == 0)
        return 0;
    long r = rec(depth - 1);
    return r + here;
}

NOINLINE void deep(int n)
{
    n_deep++;
    if (n == 0)
        longjmp(env, 1);
    deep(n - 1);
    sink += n;
}

NOINLINE void jumper(void)
{
    n_jumper++;
    deep(5);
    sink += 1;
}

static double busy(void)
{
    double t0 = MPI_Wtime();
    for (int k = 0; k < 20000; k++)
        sink += k * 0.25;
    return MPI_Wtime() - t0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double t_jump = 0, outside = 0;
    timed_span t_solve = { 0, 0 }, t_rec = { 0, 0 };
    long sw;
    for (int k = 0; k < 2; k++) {
        double t0 = timed_begin(&sw);
        sink += solve(100 + 10 * rank);
        timed_end(&t_solve, t0, sw);
    }
    for (int k = 0; k < 3 + rank; k++) {
        double t0 = timed_begin(&sw);
        sink += (double)rec(10000);
        timed_end(&t_rec, t0, sw);
    }
    for (int k = 0; k < 50 + rank; k++) {
        double t0 = MPI_Wtime();
        if (!setjmp(env))
            jumper();
        double b = busy(); /* after the jump, outside every selected function */
        outside += b;
        t_jump += MPI_Wtime() - t0;
    }
    char name[64];
    snprintf(name, sizeof name, "exact.expect.%d", rank);
    FILE *f = fopen(name, "w");
    if (!f)
        return 1;
    fprintf(f, "visits solve %ld\nvisits step %ld\nvisits rec %ld\nvisits jumper %ld\nvisits deep %ld\n",
            n_solve, n_step, n_rec, n_jumper, n_deep);
    fprintf(f, "notvisits leaf %ld\n", n_leaf);
    fprintf(f, "time solve %.9f %.9f\ntime rec %.9f %.9f\n", t_solve.spent, t_solve.slack, t_rec.spent,
            t_rec.slack);
    fprintf(f, "bound jumper %.9f\noutside jumper %.9f\n", t_jump, outside);
    fclose(f);
    MPI_Finalize();
    return 0;
}
