/*
 * exact_cxx.cpp - C++ exceptions thrown through functions measured exactly
 * (tests/mpi/exact_cxx.sh), selected by their demangled names. Each rank
 * counts and times its calls (exact_c.c's format, exact.expect.RANK):
 *
 *   top      catches what thrower throws through middle: the exception
 *            stays inside selected functions;
 *   middle   thrower's caller, with a destructor to run on the way out;
 *            called from main too, which catches: the exception leaves two
 *            selected functions at once;
 *   relay    catches and rethrows (__cxa_rethrow);
 *   local    throws and catches inside itself, many times a call.
 */
#include <mpi.h>

#include <cstdio>
#include <string>

#include "timed_call.h"

#define NOINLINE __attribute__((noinline))

static long n_top, n_middle, n_thrower, n_relay, n_local;
static volatile double sink;

namespace solver {
struct failure {
    int code;
};

NOINLINE int thrower(int i)
{
    n_thrower++;
    if (i % 3 == 0)
        throw failure{ i };
    return i;
}

NOINLINE int middle(int i)
{
    n_middle++;
    std::string s(16 + i % 7, 'x'); /* destroyed on the way out */
    return thrower(i) + (int)s.size();
}

NOINLINE int top(int i)
{
    n_top++;
    try {
        return middle(i);
    } catch (const failure &f) {
        return -f.code;
    }
}

NOINLINE int relay(int i)
{
    n_relay++;
    try {
        return thrower(i);
    } catch (...) {
        throw;
    }
}

NOINLINE int local(int n)
{
    n_local++;
    int caught = 0;
    for (int k = 0; k < n; k++) {
        try {
            thrower(3 * k);
        } catch (const failure &) {
            caught++;
        }
    }
    return caught;
}
} // namespace solver

static double busy()
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
    int n = 300 + 30 * rank;
    timed_span t_top = { 0, 0 }, t_local = { 0, 0 };
    long sw;
    for (int i = 0; i < n; i++) {
        double t1 = timed_begin(&sw);
        sink += solver::top(i);
        timed_end(&t_top, t1, sw);
    }
    double outside = 0, t0 = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        try {
            sink += solver::middle(i);
        } catch (const solver::failure &f) {
            outside += busy(); /* after two selected functions were left */
        }
    }
    double t_middle = MPI_Wtime() - t0;
    for (int i = 0; i < n; i++) {
        try {
            sink += solver::relay(i);
        } catch (const solver::failure &) {
            sink += 1;
        }
    }
    for (int i = 0; i < 20; i++) {
        double t1 = timed_begin(&sw);
        sink += solver::local(10 + rank);
        timed_end(&t_local, t1, sw);
    }
    double all = 0;
    MPI_Allreduce((void *)&sink, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    char name[64];
    snprintf(name, sizeof name, "exact.expect.%d", rank);
    FILE *f = fopen(name, "w");
    if (!f)
        return 1;
    fprintf(f, "visits solver::top %ld\nvisits solver::middle %ld\nvisits solver::thrower %ld\n", n_top, n_middle,
            n_thrower);
    fprintf(f, "visits solver::relay %ld\nvisits solver::local %ld\n", n_relay, n_local);
    fprintf(f, "time solver::top %.9f %.9f\ntime solver::local %.9f %.9f\n", t_top.spent, t_top.slack, t_local.spent,
            t_local.slack);
    fprintf(f, "bound solver::middle %.9f\noutside solver::middle %.9f\n", t_middle + t_top.spent, outside);
    fclose(f);
    MPI_Finalize();
    return 0;
}
