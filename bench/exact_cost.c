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
 *   exact_cost bare N [B]     the loop's calls through hprof's mechanism with
 *                             nothing booked: the patched entry's jumps to a
 *                             stub and a trampoline, the argument registers
 *                             saved and restored, a time stamp at the entry
 *                             and at the exit, the return sent through an
 *                             exit thunk as hprof's is (the body entered by a
 *                             call, so that the return is predicted): the
 *                             least this design costs a visit
 *   exact_cost barechain D R [B]  the recursion's calls through the same
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

#include "floor_loop.h"
#include "reference_loop.h"

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

/* bare modes: bare_leaf and bare_node are leaf and a recursion's node
 * reached the way a patched entry reaches a measured body
 * (lib/exact/exact_entry.c, unwind/exact_stack.c), with the two time
 * stamps and a stack of the return addresses, and nothing else booked: no
 * call path, no node, no self time. The stub puts the body in r11; r10 is
 * the trampoline's scratch (no body here takes a static chain). */
#define BARE_DEPTH 256
static uint64_t bare_t0 __attribute__((used)), bare_ticks __attribute__((used));
static uint64_t bare_ras[BARE_DEPTH];
static uint64_t *bare_top __attribute__((used)) = bare_ras;
long bare_leaf(long x);
long bare_node(int depth);
__attribute__((noinline, used)) long node_body(int depth);
__asm__(".text\n"
        ".p2align 4\n"
        "bare_leaf:\n"
        "  jmp bare_leaf_stub\n"
        ".p2align 4\n"
        "bare_node:\n"
        "  jmp bare_node_stub\n"
        ".p2align 4\n"
        "bare_leaf_stub:\n"
        "  leaq leaf(%rip), %r11\n"
        "  jmp bare_trampoline\n"
        ".p2align 4\n"
        "bare_node_stub:\n"
        "  leaq node_body(%rip), %r11\n"
        "  jmp bare_trampoline\n"
        ".p2align 4\n"
        "bare_trampoline:\n"
        "  pushq %rbp\n"
        "  pushq %rdi\n"
        "  pushq %rsi\n"
        "  pushq %rdx\n"
        "  pushq %rcx\n"
        "  pushq %r8\n"
        "  pushq %r9\n"
        "  pushq %rax\n"
        "  pushq %r10\n"
        "  pushq %r11\n"
        "  rdtsc\n"
        "  shlq $32, %rdx\n"
        "  orq %rdx, %rax\n"
        "  movq %rax, bare_t0(%rip)\n"
        "  popq %r11\n"
        "  popq %r10\n"
        "  popq %rax\n"
        "  popq %r9\n"
        "  popq %r8\n"
        "  popq %rcx\n"
        "  popq %rdx\n"
        "  popq %rsi\n"
        "  popq %rdi\n"
        "  popq %rbp\n"
        "  movq bare_top(%rip), %r10\n"
        "  pushq %r11\n"
        "  movq 8(%rsp), %r11\n" /* the return address */
        "  movq %r11, (%r10)\n"
        "  addq $8, %r10\n"
        "  movq %r10, bare_top(%rip)\n"
        "  popq %r11\n"
        "  leaq bare_exit(%rip), %r10\n"
        "  movq %r10, (%rsp)\n"
        "  call bare_pop\n" /* its return address is bare_exit: the return to it is predicted */
        "bare_exit:\n"
        "  pushq %rax\n"
        "  pushq %rdx\n"
        "  rdtsc\n"
        "  shlq $32, %rdx\n"
        "  orq %rdx, %rax\n"
        "  subq bare_t0(%rip), %rax\n"
        "  addq %rax, bare_ticks(%rip)\n"
        "  movq bare_top(%rip), %r11\n"
        "  subq $8, %r11\n"
        "  movq %r11, bare_top(%rip)\n"
        "  movq (%r11), %r11\n"
        "  popq %rdx\n"
        "  popq %rax\n"
        "  pushq %r11\n"
        "  ret\n" /* the return-stack entry of the caller's own call */
        "bare_pop:\n"
        "  leaq 8(%rsp), %rsp\n"
        "  jmp *%r11\n");

/* node's recursion, each call through the bare mechanism */
long node_body(int depth)
{
    volatile int here = depth;
    if (depth <= 1)
        return 1;
    return bare_node(depth - 1) + here;
}


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
    BARE,
    BARE_CHAIN
};

/* calls of the measured function in one batch of the mode's */
static long run_calls(enum mode mode, long n, int d)
{
    if (mode == FLOOR) {
        floor_loop(n, leaf, &sink);
        return n;
    }
    if (mode == BARE) {
        for (long i = 0; i < n; i++)
            sink += bare_leaf(i);
        sink += (long)bare_ticks;
        return n;
    }
    if (mode == BARE_CHAIN) {
        for (long i = 0; i < n; i++)
            sink += bare_node(d);
        sink += (long)bare_ticks;
        return n * d;
    }
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
    int chain = argc >= 4 && (strcmp(argv[1], "chain") == 0 || strcmp(argv[1], "barechain") == 0);
    enum mode mode = chain && argv[1][0] == 'b'                   ? BARE_CHAIN
                     : chain                                      ? CHAIN
                     : argc >= 3 && strcmp(argv[1], "floor") == 0 ? FLOOR
                     : argc >= 3 && strcmp(argv[1], "bare") == 0  ? BARE
                                                                  : LOOP;
    if (!chain && !(argc >= 3 && (strcmp(argv[1], "loop") == 0 || mode == FLOOR || mode == BARE))) {
        fprintf(
            stderr,
            "usage: exact_cost loop N [B] | chain D R [B] | floor N [B] | bare N [B] | barechain D R [B]\n");
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
