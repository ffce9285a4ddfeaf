/*
 * exact_cost.c - the cost of a function measured exactly, per visit (bench
 * section 5b). Built with -fpatchable-function-entry=18,16 (or without, or
 * with -finstrument-functions and bench/cygprof.c), run on one rank:
 *
 *   exact_cost loop N [B]     N calls of leaf from one loop
 *   exact_cost chain D R [B]  R calls of a recursion D deep (D calls each):
 *                             every call from a new activation of its caller
 *   exact_cost floor N [B]    the loop's calls, the program itself reading the
 *                             time stamp counter before and after each (the
 *                             floor: two clock reads a call, no tool)
 *   exact_cost divert N [B]   the floor's calls, each one's return sent
 *                             through a jump as hprof's exit thunk takes a
 *                             measured call's: the least a tool pays that
 *                             patches entries at run time and finds a call's
 *                             end by its return address (the processor's
 *                             return prediction misses), before any bookkeeping
 *
 * prints "per_call NS" (the thread's CPU time per call of a measured
 * function: on a shared machine the wall clock also counts other
 * processes' turns) and "calls N". With B, the calls are made in B
 * batches, each followed by a reference loop of the program's own (eight
 * independent chains of adds: code bound by the processor's throughput,
 * as a visit's is), and a line "batch NS REF_NS" for each: this VM's
 * processor runs such code at two speeds, switching every few seconds
 * (its host shares the core: the reference loop 1.6 or 2.2-2.6 ns an
 * iteration, in step with the calls' cost), so that costs are compared
 * in batches where the reference ran at its best.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

static volatile long sink;

__attribute__((noinline)) long leaf(long x)
{
    return x * 3 + 1;
}

__attribute__((noinline)) long node(int depth)
{
    volatile int here = depth;
    if (depth <= 1)
        return 1;
    return node(depth - 1) + here;
}

/* divert mode: leaf_diverted's return goes to divert_exit, which jumps to
 * where it was to return, as a measured call's goes through hprof's exit
 * thunk. */
uint64_t diverted_ra __attribute__((visibility("hidden")));
void divert_exit(void);
__asm__(".text\n"
        ".p2align 4\n"
        "divert_exit:\n"
        "  jmp *diverted_ra(%rip)\n");

__attribute__((noinline, optimize("no-omit-frame-pointer"))) long leaf_diverted(long x)
{
    uint64_t *slot = (uint64_t *)__builtin_frame_address(0) + 1;
    diverted_ra = *slot;
    /* a store the compiler cannot drop as one to a dead frame */
    __asm__ volatile("movq %1, (%0)" : : "r"(slot), "r"((uint64_t)(uintptr_t)divert_exit) : "memory");
    return x * 3 + 1;
}

/* The reference: eight independent chains, bound by throughput. */
static __attribute__((noinline)) long reference_loop(long n)
{
    long a = 1, b = 2, c = 3, d = 4, e = 5, f = 6, g = 7, h = 8;
    for (long i = 0; i < n; i++) {
        a += i ^ b, b += i ^ c, c += i ^ d, d += i ^ e;
        e += i ^ f, f += i ^ g, g += i ^ h, h += i ^ a;
        __asm__ volatile("" : "+r"(a), "+r"(e));
    }
    return a + b + c + d + e + f + g + h;
}

#define REFERENCE_ITERS 4000000

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

enum mode {
    LOOP,
    CHAIN,
    FLOOR,
    DIVERT
};

static long floor_calls(long n, long (*fn)(long))
{
    unsigned long long ticks = 0;
    for (long i = 0; i < n; i++) {
        unsigned long long t0 = __rdtsc();
        sink += fn(i);
        ticks += __rdtsc() - t0;
    }
    sink += (long)ticks;
    return n;
}

/* calls of the measured function in one batch of the mode's */
static long run_calls(enum mode mode, long n, int d)
{
    if (mode == FLOOR || mode == DIVERT)
        return floor_calls(n, mode == FLOOR ? leaf : leaf_diverted);
    if (mode == LOOP) {
        for (long i = 0; i < n; i++)
            sink += leaf(i);
        return n;
    }
    for (long i = 0; i < n; i++)
        sink += node(d);
    return n * d;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int chain = argc >= 4 && strcmp(argv[1], "chain") == 0;
    enum mode mode = chain                                         ? CHAIN
                     : argc >= 3 && strcmp(argv[1], "floor") == 0  ? FLOOR
                     : argc >= 3 && strcmp(argv[1], "divert") == 0 ? DIVERT
                                                                   : LOOP;
    if (!chain && !(argc >= 3 && (strcmp(argv[1], "loop") == 0 || mode == FLOOR || mode == DIVERT))) {
        fprintf(stderr, "usage: exact_cost loop N [B] | chain D R [B] | floor N [B] | divert N [B]\n");
        return 2;
    }
    int d = chain ? atoi(argv[2]) : 0;
    long n = atol(argv[chain ? 3 : 2]);
    int nb = argc > (chain ? 4 : 3) ? atoi(argv[chain ? 4 : 3]) : 1;
    if (nb < 1 || nb > 1000)
        nb = 1;
    double batch_ns[1000], ref_ns[1000], t = 0;
    long calls = 0;
    for (int b = 0; b < nb; b++) {
        double t0 = cpu_now();
        long c = run_calls(mode, n / nb, d);
        double t1 = cpu_now();
        if (nb > 1)
            sink += reference_loop(REFERENCE_ITERS);
        double t2 = cpu_now();
        calls += c;
        t += t1 - t0;
        batch_ns[b] = (t1 - t0) * 1e9 / (double)c;
        ref_ns[b] = (t2 - t1) * 1e9 / REFERENCE_ITERS;
    }
    printf("per_call %.2f\ncalls %ld\n", t * 1e9 / (double)calls, calls);
    for (int b = 0; nb > 1 && b < nb; b++)
        printf("batch %.2f %.3f\n", batch_ns[b], ref_ns[b]);
    MPI_Finalize();
    return 0;
}
