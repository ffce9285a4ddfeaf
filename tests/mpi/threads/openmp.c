/*
 * openmp.c - a parallel region whose work is split unevenly in known
 * proportions: OpenMP thread t of 4 spins (t + 1) x UNIT seconds in
 * `omp_work`; outside the parallel region, thread 0 spins SERIAL seconds in
 * `serial_work`. Prints `truth RANK T SECONDS` per thread.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <time.h>

#define UNIT 0.1
#define SERIAL 0.3

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static __attribute__((noinline)) double spin(double seconds)
{
    double t = now(), end = t + seconds;
    while (now() < end)
        ;
    return now() - t;
}

/* The empty asm after the call keeps these frames: no tail call into spin. */
static __attribute__((noinline)) double omp_work(int t)
{
    double r = spin((t + 1) * UNIT);
    __asm__ volatile("" ::: "memory");
    return r;
}

static __attribute__((noinline)) double serial_work(void)
{
    double r = spin(SERIAL);
    __asm__ volatile("" ::: "memory");
    return r;
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double spent[4] = { 0 };
#pragma omp parallel num_threads(4)
    {
        int t = omp_get_thread_num();
        spent[t] = omp_work(t);
    }
    double serial = serial_work();
    MPI_Barrier(MPI_COMM_WORLD);
    for (int t = 0; t < 4; t++)
        printf("truth %d %d %.6f\n", rank, t, spent[t]);
    printf("serial %d %.6f\n", rank, serial);
    MPI_Finalize();
    return 0;
}
