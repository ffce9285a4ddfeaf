/*
 * exact_dlopen.c - functions measured exactly in a library opened after
 * MPI_Init (tests/mpi/exact_dlopen.sh): ./libexactplug.so is dlopen'ed a
 * while into the run, its plug_solve and plug_step called through dlsym
 * (hprof patches the library at that dlsym), timed, and the library
 * closed before MPI_Finalize. exact.expect.RANK (check_exact.py) also
 * says, as
 *
 *   since REGION S
 *
 * that REGION could not have been patched earlier than S seconds after
 * MPI_Init returned (hprof counts from its entry).
 */
#define _GNU_SOURCE /* RUSAGE_THREAD (timed_call.h) */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#include "timed_call.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double t_start = now();
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    while (now() - t_start < 0.2) /* a while before the library comes */
        ;
    double t_open = now() - t_start;
    void *h = dlopen("./libexactplug.so", RTLD_NOW);
    if (!h) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    double (*solve)(int) = (double (*)(int))dlsym(h, "plug_solve");
    long *calls = (long *)dlsym(h, "plug_calls");
    if (!solve || !calls)
        return 1;
    /* The first call is hprof's first walk into the new library (its
     * recipes learned: milliseconds on a loaded machine, outside the
     * function's exact time but inside the program's clock reads around
     * the call): all of its span is slack. */
    timed_span t_solve = { 0, 0 };
    long sw;
    double s = 0;
    for (int k = 0; k < 4; k++) {
        double t0 = timed_begin(&sw), slack = t_solve.slack;
        s += solve(100 + 10 * rank);
        timed_end(&t_solve, t0, sw);
        if (k == 0)
            t_solve.slack = slack + (MPI_Wtime() - t0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    char name[64];
    snprintf(name, sizeof name, "exact.expect.%d", rank);
    FILE *f = fopen(name, "w");
    if (!f)
        return 1;
    fprintf(f,
            "visits plug_solve %ld\nvisits plug_step %ld\ntime plug_solve %.9f %.9f\nsince plug_solve %.9f\n",
            calls[0], calls[1], t_solve.spent, t_solve.slack, t_open);
    fclose(f);
    dlclose(h);
    if (s < 0)
        printf("%g\n", s);
    MPI_Finalize();
    return 0;
}
