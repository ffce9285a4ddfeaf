/*
 * limits.c - call trees that would grow without bound.
 *   limits deep N     recursion to depth N, an MPI call at the bottom
 *   limits wide D     a binary tree of calls D levels deep, two call sites a
 *                     level, an MPI call at each of the 2^D leaves: 2^D
 *                     distinct call paths
 *   limits mixed D    wide D on every rank, then a tree D-3 levels deep
 *                     under even_branch on even ranks, under odd_branch on
 *                     odd ones: call paths that only some ranks have
 * Prints `calls RANK N` (MPI calls made) and `hwm RANK KB` (peak memory),
 * and after MPI_Finalize `hwm_final RANK KB` (the merge and write included).
 */
#include <mpi.h>

#include "../common/proc_memory.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long calls;

static __attribute__((noinline)) void deep(int n)
{
    volatile int guard = n;
    if (guard > 0) {
        deep(n - 1);
        __asm__ volatile("" ::: "memory"); /* no tail call: every frame stays */
    } else {
        MPI_Barrier(MPI_COMM_SELF);
        calls++;
    }
}

static __attribute__((noinline)) void wide(int d)
{
    volatile int guard = d;
    if (guard == 0) {
        MPI_Barrier(MPI_COMM_SELF);
        calls++;
        return;
    }
    wide(d - 1); /* call site one */
    __asm__ volatile("" ::: "memory");
    wide(d - 1); /* call site two */
    __asm__ volatile("" ::: "memory");
}

static volatile int branch_taken;

static __attribute__((noinline)) void even_branch(int d)
{
    branch_taken = 2; /* bodies differ: never folded into one function */
    wide(d);
    __asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void odd_branch(int d)
{
    branch_taken = 1;
    wide(d);
    __asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 2 && strcmp(argv[1], "deep") == 0) {
        deep(atoi(argv[2]));
    } else if (argc > 2 && strcmp(argv[1], "mixed") == 0) {
        int d = atoi(argv[2]) > 3 ? atoi(argv[2]) : 3;
        wide(d);
        if (rank % 2 == 0)
            even_branch(d - 3);
        else
            odd_branch(d - 3);
    } else if (argc > 2) {
        wide(atoi(argv[2]));
    }
    printf("calls %d %ld\nhwm %d %ld\n", rank, calls, rank, proc_memory_kb("VmHWM:"));
    fflush(stdout);
    MPI_Finalize();
    printf("hwm_final %d %ld\n", rank, proc_memory_kb("VmHWM:"));
    return 0;
}
