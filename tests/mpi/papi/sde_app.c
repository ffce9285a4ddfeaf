/*
 * sde_app.c - a program that exports PAPI Software Defined Events with
 * increments it knows exactly, for tests/mpi/papi_sde.sh.
 *
 *   sde:::hproftest::WORK    +1 per loop iteration in compute_a() and
 *                            compute_b(), never inside MPI: sampled call
 *                            paths get it, within sampling error
 *   sde:::hproftest::IN_OP   +count inside a user-defined MPI_Op, so only
 *                            inside MPI calls: MPI_Reduce_local calls the op
 *                            exactly once per call; inside MPI_Allreduce the
 *                            program counts what the op added. MPI call
 *                            paths get it exactly.
 *   sde:::hproftest::UNUSED  registered, never incremented
 *
 * Prints per rank `expect RANK work_a work_b in_op_local in_op_allreduce`.
 * Usage: sde_app [ITERATIONS [MS_A MS_B]]. Compiles without PAPI with -DNO_SDE.
 */
#include <mpi.h>
#ifndef NO_SDE
#include <sde_lib.h>
#else /* no libpapi-dev: the same program without the counters */
typedef void *papi_handle_t;
#define papi_sde_init(name) NULL
#define papi_sde_register_counter(h, n, m, t, p) ((void)(p))
#define papi_sde_describe_counter(h, n, d) ((void)0)
#endif
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long work, in_op, unused;
static long long work_a, work_b, op_site[2];
static int site; /* 0: MPI_Reduce_local, 1: MPI_Allreduce */
static volatile double sink;

static void add_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
    in_op += *len;
    op_site[site] += *len;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Busy for ms milliseconds; work advances at a steady rate. */
static long long spin(double ms)
{
    long long n = 0;
    double end = now() + ms * 1e-3, x = 1.0;
    while (now() < end) {
        for (int i = 0; i < 200; i++)
            x = x * 1.0000001 + 1e-9;
        work++;
        n++;
    }
    sink = x;
    return n;
}

__attribute__((noinline)) static void compute_a(double ms)
{
    work_a += spin(ms);
}
__attribute__((noinline)) static void compute_b(double ms)
{
    work_b += spin(ms);
}

__attribute__((noinline)) static void reduce_locally(MPI_Op op, int count)
{
    int in[64], inout[64];
    for (int i = 0; i < count; i++)
        in[i] = inout[i] = i;
    site = 0;
    MPI_Reduce_local(in, inout, count, MPI_INT, op);
}

__attribute__((noinline)) static void reduce_globally(MPI_Op op, int count)
{
    int in[64], out[64];
    for (int i = 0; i < count; i++)
        in[i] = i;
    site = 1;
    MPI_Allreduce(in, out, count, MPI_INT, op, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    papi_handle_t h = papi_sde_init("hproftest");
    papi_sde_register_counter(h, "WORK", PAPI_SDE_RO | PAPI_SDE_DELTA, PAPI_SDE_long_long, &work);
    papi_sde_describe_counter(h, "WORK", "Loop iterations in compute_a and compute_b");
    papi_sde_register_counter(h, "IN_OP", PAPI_SDE_RO | PAPI_SDE_DELTA, PAPI_SDE_long_long, &in_op);
    papi_sde_describe_counter(h, "IN_OP", "Elements combined by the user-defined reduction");
    papi_sde_register_counter(h, "UNUSED", PAPI_SDE_RO | PAPI_SDE_DELTA, PAPI_SDE_long_long, &unused);
    (void)h;

    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int iters = argc > 1 ? atoi(argv[1]) : 20;
    double ms_a = argc > 3 ? atof(argv[2]) : 30, ms_b = argc > 3 ? atof(argv[3]) : 15;
    MPI_Op op;
    MPI_Op_create(add_op, 1, &op);
    int count = 3 + rank;
    for (int it = 0; it < iters; it++) {
        compute_a(ms_a);
        for (int k = 0; k < 5 + rank; k++)
            reduce_locally(op, count);
        compute_b(ms_b);
        reduce_globally(op, 4); /* the same count on every rank */
    }
    MPI_Op_free(&op);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("expect %d %lld %lld %lld %lld\n", rank, work_a, work_b, op_site[0], op_site[1]);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
