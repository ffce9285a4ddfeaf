/*
 * sde_threads.c - SDE counters advanced by several threads that all make MPI
 * calls (MPI_THREAD_MULTIPLE), for tests/mpi/papi_sde.sh. SDE counters are
 * process-wide: hprof counts them on the thread that called MPI_Init, so per
 * rank the sum over all call paths and threads must still equal the total.
 * Prints `total RANK work in_op`.
 */
#include <mpi.h>
#include <pthread.h>
#include <sde_lib.h>
#include <stdio.h>

#define NWORKERS 2

static long long work, in_op;
static MPI_Op op;

static void add_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in;
    (void)inout;
    (void)dt;
    __atomic_fetch_add(&in_op, *len, __ATOMIC_RELAXED);
}

__attribute__((noinline)) static void busy(long n)
{
    volatile double x = 1;
    for (long i = 0; i < n; i++) {
        x = x * 1.0000001;
        if (i % 100 == 0)
            __atomic_fetch_add(&work, 1, __ATOMIC_RELAXED);
    }
}

static void *worker(void *arg)
{
    (void)arg;
    int in[8] = { 0 }, io[8] = { 0 };
    for (int i = 0; i < 50; i++) {
        busy(200000);
        MPI_Reduce_local(in, io, 7, MPI_INT, op);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    papi_handle_t h = papi_sde_init("hprofthr");
    papi_sde_register_counter(h, "WORK", PAPI_SDE_RO | PAPI_SDE_DELTA, PAPI_SDE_long_long, &work);
    papi_sde_register_counter(h, "IN_OP", PAPI_SDE_RO | PAPI_SDE_DELTA, PAPI_SDE_long_long, &in_op);
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Op_create(add_op, 1, &op);
    pthread_t t[NWORKERS];
    for (int i = 0; i < NWORKERS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    worker(NULL);
    for (int i = 0; i < NWORKERS; i++)
        pthread_join(t[i], NULL);
    MPI_Op_free(&op);
    printf("total %d %lld %lld\n", rank, work, in_op);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
