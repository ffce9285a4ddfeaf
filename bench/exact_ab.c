/*
 * exact_ab.c - an exact visit's cost against -finstrument-functions with
 * bench/cygprof.c, in one process, block beside block (bench/run.py
 * section 5b).
 *
 * Separate runs of separate builds (5b's first table) compare costs of
 * 1-2 ns on a processor whose host switches its speed every few seconds.
 * Here one program holds three copies of the same functions
 * (exact_ab_fns.c): built plainly, with patchable entries (hprof measures
 * them exactly when HPROFTEST_EXACT names them), and with
 * -finstrument-functions (cygprof's hooks). It calls each copy in turn,
 * block after block, and the program's own floor (two time stamp reads
 * around each call of the plain copy): a block takes some milliseconds,
 * and the four blocks of a round meet the same speed. Per round, a visit's
 * cost is its block's time a call less the plain block's. hprof, seeing
 * an exit hook in the program, would take its thunks off (it cannot know
 * that cygprof reads no return address): run it with HPROF_THUNKS=1.
 *
 *   exact_ab loop R N    R rounds of N calls of leaf from one loop
 *   exact_ab chain R N [D]  R rounds of N recursions D deep (16; each call
 *                        from a new activation of its caller)
 *
 * prints "exact_ab MODE: R rounds of N calls;" and the medians (25th..75th
 * percentile) over the rounds of: plain, floor (ns a call), probe (ns a
 * call above the floor), hprof and cygprof (ns a visit above plain),
 * hprof less cygprof (ns a visit, per round). With EXACT_AB_ROUNDS set,
 * a line per round as well.
 *
 * The probe is the floor with 16 more stores, each to a line of its own,
 * between the clock reads. This VM's host lets such work hide under the
 * two clock reads at some times and not at others (most likely another
 * tenant on the physical core, which the VM cannot see): the probe's cost
 * above the floor says which state a run met. hprof's visit, some 240
 * instructions against cygprof's 66, feels that state most
 * (bench/RESULTS.md, 5b).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "floor_loop.h"

static int depth = 16; /* the recursion's */
#define MAX_ROUNDS 4096

long leaf_plain(long x), leaf_exact(long x), leaf_cyg(long x);
long node_plain(int depth), node_exact(int depth), node_cyg(int depth);

static volatile long sink;

enum variant {
    PLAIN,
    FLOOR,
    PROBE,
    HPROF,
    CYG,
    VARIANTS
};

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#define PROBE_STORES 16
static char probe_lines[PROBE_STORES][4096 + 64];

/* the floor with PROBE_STORES more stores, each to a line of its own
 * page and cache set, between the clock reads */
static void probe_loop(long n)
{
    unsigned long long ticks = 0;
    for (long i = 0; i < n; i++) {
        unsigned long long t0 = __rdtsc();
        sink += leaf_plain(i);
        for (int k = 0; k < PROBE_STORES; k++)
            (*(volatile long *)&probe_lines[k][k * 64])++;
        ticks += __rdtsc() - t0;
    }
    sink += (long)ticks;
}

static void loop_calls(long n, long (*fn)(long))
{
    for (long i = 0; i < n; i++)
        sink += fn(i);
}

static void chain_calls(long n, long (*fn)(int))
{
    for (long i = 0; i < n; i++)
        sink += fn(depth);
}

/* one block of variant v: ns a call of the measured function */
static double block(int chain, enum variant v, long n)
{
    static long (*const leaves[])(long) = { leaf_plain, leaf_plain, leaf_plain, leaf_exact, leaf_cyg };
    static long (*const nodes[])(int) = { node_plain, node_plain, node_plain, node_exact, node_cyg };
    double t0 = cpu_now();
    if (v == FLOOR)
        floor_loop(n, leaf_plain, &sink);
    else if (v == PROBE)
        probe_loop(n);
    else if (chain)
        chain_calls(n, nodes[v]);
    else
        loop_calls(n, leaves[v]);
    /* the floor and the probe are the loop's, in both modes */
    return (cpu_now() - t0) * 1e9 / (double)(chain && v != FLOOR && v != PROBE ? n * depth : n);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void print_quartiles(const char *what, double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], by_value);
    printf(" %s %.2f (%.2f..%.2f)", what, v[n / 2], v[n / 4], v[3 * n / 4]);
}

int main(int argc, char **argv)
{
    static double ns[VARIANTS][MAX_ROUNDS], probe[MAX_ROUNDS], hprof[MAX_ROUNDS], cyg[MAX_ROUNDS],
        gap[MAX_ROUNDS];
    if (argc < 4 || argc > 5 || (strcmp(argv[1], "loop") && strcmp(argv[1], "chain"))) {
        fprintf(stderr, "usage: exact_ab loop|chain ROUNDS CALLS [DEPTH]\n");
        return 2;
    }
    int chain = strcmp(argv[1], "chain") == 0, rounds = atoi(argv[2]);
    long n = atol(argv[3]);
    if (argc == 5)
        depth = atoi(argv[4]);
    if (rounds < 4 || rounds > MAX_ROUNDS || n < 1 || depth < 1 || depth > 1000) {
        fprintf(stderr, "exact_ab: ROUNDS 4..%d, CALLS at least 1, DEPTH 1..1000\n", MAX_ROUNDS);
        return 2;
    }
    MPI_Init(&argc, &argv);
    for (int v = 0; v < VARIANTS; v++) /* warm: the first visits learn, patch and allocate */
        block(chain, (enum variant)v, n / 4 + 1);
    for (int r = 0; r < rounds; r++) {
        for (int v = 0; v < VARIANTS; v++)
            ns[v][r] = block(chain, (enum variant)v, n);
        hprof[r] = ns[HPROF][r] - ns[PLAIN][r];
        cyg[r] = ns[CYG][r] - ns[PLAIN][r];
        gap[r] = hprof[r] - cyg[r];
        probe[r] = ns[PROBE][r] - ns[FLOOR][r];
        if (getenv("EXACT_AB_ROUNDS"))
            printf("exact_ab round %d: probe %.2f hprof %.2f cygprof %.2f hprof-cygprof %.2f\n", r, probe[r],
                   hprof[r], cyg[r], gap[r]);
    }
    printf("exact_ab %s: %d rounds of %ld calls", argv[1], rounds, n);
    if (chain)
        printf(", %d deep", depth);
    printf(";");
    print_quartiles("plain", ns[PLAIN], rounds);
    print_quartiles("floor", ns[FLOOR], rounds);
    print_quartiles("probe", probe, rounds);
    print_quartiles("hprof", hprof, rounds);
    print_quartiles("cygprof", cyg, rounds);
    print_quartiles("hprof-cygprof", gap, rounds);
    printf("\n");
    MPI_Finalize();
    return 0;
}
