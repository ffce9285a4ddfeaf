/* coswitch_onstack.c - a coroutine whose stack is a local array of main's,
 * so that it lies on the thread's own stack, above the frames main calls.
 * outer() makes an MPI call, switches to the coroutine and, once it
 * switches back, calls MPI_Barrier; in the coroutine, task() recursing
 * calls inner(), which (with "backtrace": after a walk of the program's
 * own) makes an MPI call, computes a while (so that samples land there
 * too) and switches back. With "outer-backtrace" the program's own walk
 * is outer's instead, right before it switches. The switch is swapcontext
 * (mode ucontext) or a coroutine library's own, written in assembly (mode
 * asm), which hprof does not see. 1000 rounds.
 *   coswitch_onstack ucontext|asm [backtrace|outer-backtrace]
 * prints its counts on rank 0
 */
#include <execinfo.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "co_switch.h"

static int use_ucontext, walk_back, walk_back_outer;
static ucontext_t main_uc, co_uc;
static void *main_sp, *co_sp;
static long outer_calls, inner_calls, rounds_done;
static volatile unsigned long work;

static void to_main(void)
{
    if (use_ucontext)
        swapcontext(&co_uc, &main_uc);
    else
        co_switch(&co_sp, main_sp);
}

static void to_coroutine(void)
{
    if (use_ucontext)
        swapcontext(&main_uc, &co_uc);
    else
        co_switch(&main_sp, co_sp);
}

__attribute__((noinline)) void inner(void)
{
    inner_calls++;
    if (walk_back) {
        void *ips[16];
        backtrace(ips, 16);
    }
    MPI_Barrier(MPI_COMM_SELF);
    for (int i = 0; i < 20000; i++)
        work += (unsigned long)i * 2654435761u >> 7;
    to_main();
    __asm__ volatile(""); /* no tail call: inner's frame stays while switched away */
}

/* more frames than main's callers and main: the coroutine's walks take
 * the depths of main's and outer's frames */
__attribute__((noinline)) void task(int levels)
{
    if (levels > 0)
        task(levels - 1);
    else
        inner();
    __asm__ volatile("");
}

static void co_body(void)
{
    for (;;) {
        task(3);
        rounds_done++;
    }
}

__attribute__((noinline)) void outer(void)
{
    outer_calls++;
    int one = 1, sum;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
    if (walk_back_outer) {
        void *ips[16];
        backtrace(ips, 16);
    }
    to_coroutine();
    MPI_Barrier(MPI_COMM_WORLD);
    __asm__ volatile("");
}

/* The first switch to the coroutine returns into co_body with the stack
 * aligned as after a call (rsp % 16 == 8). */
static void co_prepare(char *top)
{
    void **sp = (void **)top;
    *--sp = NULL;
    *--sp = (void *)co_body;
    for (int i = 0; i < 6; i++) /* r15..rbp */
        *--sp = NULL;
    co_sp = sp;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "asm";
    walk_back = argc > 2 && strcmp(argv[2], "backtrace") == 0;
    walk_back_outer = argc > 2 && strcmp(argv[2], "outer-backtrace") == 0;
    int rounds = 1000;
    use_ucontext = strcmp(mode, "ucontext") == 0;
    char stack[1 << 16] __attribute__((aligned(16)));
    if (use_ucontext) {
        getcontext(&co_uc);
        co_uc.uc_stack.ss_sp = stack;
        co_uc.uc_stack.ss_size = sizeof stack;
        co_uc.uc_link = NULL;
        makecontext(&co_uc, co_body, 0);
    } else {
        co_prepare(stack + sizeof stack);
    }
    for (int i = 0; i < rounds; i++)
        outer();
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("%s: outer %ld, inner %ld, rounds %ld\n", mode, outer_calls, inner_calls, rounds_done);
    MPI_Finalize();
    return 0;
}
