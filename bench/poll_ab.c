/*
 * poll_ab.c - a tool's cost inside a polling loop, against no tool in the
 * same process (bench/run.py section 4d; preloaded before the tool:
 * LD_PRELOAD=poll_ab.so:tool.so).
 *
 * Whole runs of hpcc, alternated, spread by 20-40% on a host that halves
 * memory-bound speed for seconds at a time, so that whole-run rounds
 * cannot tell a few percent apart. Here the calls of MPIRandomAccess's
 * loop (MPI_Testany, MPI_Test, MPI_Isend, MPI_Irecv) switch together,
 * every BLOCK MPI_Testany polls, between the next library's wrappers (the
 * tool's) and PMPI (no tool): blocks of a few milliseconds, a tool block
 * and a bare block side by side, both slowed alike when the host slows.
 * Each switch reads the clock; at MPI_Finalize each rank prints the ratio
 * of a tool block's time to the bare block after it, over all pairs
 * (quartiles: a pair that spans the end of the loop, or another phase,
 * is an outlier the median ignores).
 *
 * What it measures is what the tool costs the loop: its wrappers' work
 * and what that does to the loop around them (misses no longer
 * overlapped). A tool that wraps only some of these calls gets the MPI
 * library's own for the others, in both blocks alike. Every call is a tail
 * call, so the tool's wrapper sees the program's frame and return address
 * as when it is called directly.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef BLOCK
#define BLOCK 32768 /* polls a block: some milliseconds in hpcc's MPIRandomAccess */
#endif
#define MAX_BLOCKS 16384

typedef int (*testany_fn)(int, MPI_Request *, int *, int *, MPI_Status *);
typedef int (*test_fn)(MPI_Request *, int *, MPI_Status *);
typedef int (*isend_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
typedef int (*irecv_fn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);

/* the tool's wrappers (RTLD_NEXT), and where each call goes now: bare first,
 * block 0 is not kept */
static struct {
    testany_fn testany;
    test_fn test;
    isend_fn isend;
    irecv_fn irecv;
} tool, current = { PMPI_Testany, PMPI_Test, PMPI_Isend, PMPI_Irecv };
static unsigned long polls;
static int in_tool, blocks;
static double block_began, block_s[MAX_BLOCKS]; /* even: the tool's blocks, odd: bare */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void find_tool(void)
{
    tool.testany = (testany_fn)dlsym(RTLD_NEXT, "MPI_Testany");
    tool.test = (test_fn)dlsym(RTLD_NEXT, "MPI_Test");
    tool.isend = (isend_fn)dlsym(RTLD_NEXT, "MPI_Isend");
    tool.irecv = (irecv_fn)dlsym(RTLD_NEXT, "MPI_Irecv");
}

static __attribute__((noinline)) void switch_block(void)
{
    double t = now_s();
    if (!tool.testany)
        find_tool();
    if (block_began > 0 && blocks < MAX_BLOCKS)
        block_s[blocks++] = t - block_began;
    block_began = t;
    in_tool = !in_tool && tool.testany && tool.test && tool.isend && tool.irecv;
    current.testany = in_tool ? tool.testany : PMPI_Testany;
    current.test = in_tool ? tool.test : PMPI_Test;
    current.isend = in_tool ? tool.isend : PMPI_Isend;
    current.irecv = in_tool ? tool.irecv : PMPI_Irecv;
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    if (__builtin_expect(++polls % BLOCK == 0, 0))
        switch_block();
    return current.testany(count, requests, index, flag, status);
}

/* the loop's other calls: the tool's in its blocks, bare in the others */
int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    return current.test(request, flag, status);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    return current.isend(buf, count, type, dest, tag, comm, request);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    return current.irecv(buf, count, type, source, tag, comm, request);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int MPI_Finalize(void)
{
    static double ratio[MAX_BLOCKS / 2];
    int pairs = 0, rank = 0;
    for (int k = 0; k + 1 < blocks; k += 2)
        ratio[pairs++] = block_s[k] / block_s[k + 1];
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (pairs) {
        qsort(ratio, (size_t)pairs, sizeof ratio[0], by_value);
        fprintf(stderr, "poll_ab: rank %d: %d pairs of %d polls, tool/bare p25 %.4f median %.4f p75 %.4f\n",
                rank, pairs, BLOCK, ratio[pairs / 4], ratio[pairs / 2], ratio[3 * pairs / 4]);
    } else {
        fprintf(stderr, "poll_ab: rank %d: %lu polls, not one pair of blocks\n", rank, polls);
    }
    int (*finalize)(void) = (int (*)(void))dlsym(RTLD_NEXT, "MPI_Finalize");
    return finalize ? finalize() : PMPI_Finalize();
}
