/*
 * reference_loop.h - the bench programs' measure of the processor's speed
 * (bench/exact_cost.c, bench/callcost.c). This VM's processor runs
 * throughput-bound code at two speeds, switching every few seconds (its
 * host shares the core); a program that makes its calls in batches, each
 * followed by this loop, lets bench/run.py compare costs in the batches
 * where the loop ran at its best.
 */
#ifndef BENCH_REFERENCE_LOOP_H
#define BENCH_REFERENCE_LOOP_H

/* Eight independent chains of adds, bound by throughput as a call's
 * bookkeeping is. */
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

#endif
