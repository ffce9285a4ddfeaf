/*
 * computeonly.c - a thread that never calls MPI but runs through many
 * functions (F0..F255, all distinct code) while sampled at a high rate: its
 * calling context tree grows from the signal handler alone and must hold
 * every sampled path (nothing under "(call tree full)").
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static volatile double sink;
#define F(i)                                         \
    static __attribute__((noinline)) void f##i(void) \
    {                                                \
        double x = i;                                \
        for (int k = 0; k < 20000; k++)              \
            x = x * 1.0000001 + 1e-9;                \
        sink = x;                                    \
    }
#define F8(i) F(i##0) F(i##1) F(i##2) F(i##3) F(i##4) F(i##5) F(i##6) F(i##7)
/* macro calls that define functions, one line */
/* clang-format off */
F8(1) F8(2) F8(3) F8(4) F8(5) F8(6) F8(7) F8(8)
#define R(i) f##i,
#define R8(i) R(i##0) R(i##1) R(i##2) R(i##3) R(i##4) R(i##5) R(i##6) R(i##7)
static void (*const table[])(void) = { R8(1) R8(2) R8(3) R8(4) R8(5) R8(6) R8(7) R8(8) };
/* clang-format on */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *worker(void *arg)
{
    double end = now() + 1.5;
    for (unsigned i = 0; now() < end; i++)
        table[i % (sizeof table / sizeof table[0])]();
    return arg;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    pthread_t th;
    pthread_create(&th, NULL, worker, NULL);
    pthread_join(th, NULL);
    MPI_Finalize();
    return 0;
}
