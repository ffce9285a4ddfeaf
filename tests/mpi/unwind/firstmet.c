/*
 * firstmet.c - MPI_Init, a pause, then computation in 128 functions met
 * one after the other (no MPI call in between to learn recipes at), each
 * for a few ms (4 million multiply-adds): every function's first sample finds no recipe for its
 * frame unless the program's code was learned ahead (unwind/prelearn.c).
 * The pause (0.3 s, argv[1]) is the start-up a real program has before its
 * hot code runs. With argv[2], a file the rank's stderr goes to, the pause
 * lasts at least until hprof said there that it prelearned the recipes (at
 * most 30 s): the prelearner runs at idle priority, and on a loaded
 * machine it may wait seconds for the CPU time it needs. Sampled on the CPU clock,
 * the pause itself has no samples.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile double sink;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* arithmetic only: a clock read in the loop would put samples in the
 * vDSO, which has its own story */
NOINLINE static void burn(long iters, double k)
{
    double x = k;
    for (long i = 0; i < iters; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

/* distinct bodies (the constant), so no two are folded into one */
#define F(n)                               \
    NOINLINE static void f##n(long s)      \
    {                                      \
        burn(s, n + 1.5);                  \
        __asm__ volatile("" ::: "memory"); \
    }
#define F8(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7)
/* macro calls that define functions, two lines */
/* clang-format off */
F8(1) F8(2) F8(3) F8(4) F8(5) F8(6) F8(7) F8(8)
F8(9) F8(10) F8(11) F8(12) F8(13) F8(14) F8(15) F8(16)
#define C8(n) f##n##0, f##n##1, f##n##2, f##n##3, f##n##4, f##n##5, f##n##6, f##n##7
static void (*const fns[])(long) = { C8(1), C8(2), C8(3), C8(4), C8(5), C8(6), C8(7), C8(8),
    C8(9), C8(10), C8(11), C8(12), C8(13), C8(14), C8(15), C8(16) };
/* clang-format on */

/* The file at path says that the recipes were prelearned. */
static int said_prelearned(const char *path)
{
    static char text[1 << 16];
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    return strstr(text, "prelearned the recipes") != NULL;
}

int main(int argc, char **argv)
{
    double pause = argc > 1 ? atof(argv[1]) : 0.3;
    const char *log = argc > 2 ? argv[2] : NULL;
    MPI_Init(&argc, &argv);
    usleep((useconds_t)(pause * 1e6));
    for (int i = 0; log && i < 3000 && !said_prelearned(log); i++)
        usleep(10000);
    double t = now();
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        fns[i](4000000); /* ~5-10 ms each */
    printf("computed %.3f s\n", now() - t);
    MPI_Finalize();
    printf("done\n");
    return 0;
}
