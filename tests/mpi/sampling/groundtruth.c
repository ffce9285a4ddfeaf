/*
 * groundtruth.c - a program whose split of time is known, to check the
 * sampler's accuracy. Each rank spends known wall time in functions a, b, c
 * (busy loops that read the clock themselves) and in `sleeper` (nanosleep
 * outside MPI), with MPI calls interleaved at different densities:
 *   dense:  an MPI call every 10-30 us     (a, b; each chunk drawn)
 *   sparse: an MPI call every 20 ms        (a, c)
 *   waits:  long MPI_Barrier waits while one rank computes (b on rank 0, c on the last)
 *   sleep:  blocked in nanosleep outside MPI
 * At the end every rank prints `truth RANK A B C SLEEP` with the time it
 * measured inside each, in seconds.
 *
 * usage: groundtruth [SCALE]    (SCALE multiplies every duration; default 1)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double spent[4];
static double spent_wall; /* func_a, b, c on the wall clock: their share of a core */
enum {
    A,
    B,
    C,
    SLEEP
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The truth is kept on the clock being checked: GT_CLOCK=cpu for the
 * thread's CPU time. */
static clockid_t truth_clock = CLOCK_MONOTONIC;
static double truth_now(void)
{
    struct timespec ts;
    clock_gettime(truth_clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static __attribute__((noinline)) void spin(double seconds)
{
    double end = now() + seconds;
    while (now() < end)
        ;
}

static __attribute__((noinline)) void func_a(double s)
{
    double t = truth_now(), w = now();
    spin(s);
    spent[A] += truth_now() - t;
    spent_wall += now() - w;
}
static __attribute__((noinline)) void func_b(double s)
{
    double t = truth_now(), w = now();
    spin(s);
    spent[B] += truth_now() - t;
    spent_wall += now() - w;
}
static __attribute__((noinline)) void func_c(double s)
{
    double t = truth_now(), w = now();
    spin(s);
    spent[C] += truth_now() - t;
    spent_wall += now() - w;
}

static __attribute__((noinline)) void sleeper(double seconds)
{
    double t = now(), truth_start = truth_now();
    while (now() - t < seconds) {
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    spent[SLEEP] += truth_now() - truth_start;
}

/* A chunk of the dense phase, 10-30 us, 20 on average. Drawn, not fixed:
 * with 20 us chunks the loop took 62.5 us here, a divisor of the CPU
 * clock's 4 ms ticks (CONFIG_HZ=250), and every sample on that clock,
 * which the kernel delivers at a tick, found the loop at the same point
 * (func_b +0.094 s of 0.206 on one rank in a fresh clone's make check):
 * the sampler cannot draw where a tick falls, and the truth comes from the
 * program anyway. */
static double dense_chunk(void)
{
    static unsigned state = 2463534242u;
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return (10.0 + 20.0 * (double)(state % 1000u) / 1000.0) * 1e-6;
}

static __attribute__((noinline)) void phase_dense(double scale)
{
    /* a:b = 2:1 in chunks of 20 us on average, an MPI call after each */
    int rounds = (int)(0.2 * scale / 20e-6);
    for (int i = 0; i < rounds; i++) {
        func_a(dense_chunk());
        MPI_Barrier(MPI_COMM_SELF);
        func_a(dense_chunk());
        MPI_Barrier(MPI_COMM_SELF);
        func_b(dense_chunk());
        MPI_Barrier(MPI_COMM_SELF);
    }
}

static __attribute__((noinline)) void phase_sparse(double scale)
{
    int rounds = (int)(0.4 * scale / 40e-3);
    for (int i = 0; i < rounds; i++) {
        func_a(20e-3);
        MPI_Barrier(MPI_COMM_SELF);
        func_c(20e-3);
        MPI_Barrier(MPI_COMM_SELF);
    }
}

static __attribute__((noinline)) void phase_waits(double scale, int rank, int size)
{
    if (rank == 0)
        func_b(0.2 * scale);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1)
        func_c(0.2 * scale);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    const char *clock = getenv("GT_CLOCK");
    if (clock && strcmp(clock, "cpu") == 0)
        truth_clock = CLOCK_THREAD_CPUTIME_ID;
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    phase_dense(scale);
    phase_sparse(scale);
    phase_waits(scale, rank, size);
    sleeper(0.3 * scale);
    printf("truth %d %.6f %.6f %.6f %.6f\n", rank, spent[A], spent[B], spent[C], spent[SLEEP]);
    printf("share %d %.4f\n", rank, spent_wall > 0 ? (spent[A] + spent[B] + spent[C]) / spent_wall : 1.0);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
