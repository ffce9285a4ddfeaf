/* exact.c - known call paths, visits and bytes, for mpi_calls_exact.sh.
 * Works on any number of ranks (1 included). Constants in exact_consts.h;
 * exact_expect.py derives the expected profile from the same constants. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exact_consts.h"

#define NOINLINE __attribute__((noinline))

static int rank, np, left, right;

NOINLINE static void exchange(double *sb, double *rb)
{
    MPI_Sendrecv(sb, SR_COUNT, MPI_DOUBLE, right, 1, rb, SR_COUNT, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

NOINLINE static void solver(void)
{
    double *sb = calloc(SR_COUNT, sizeof *sb), *rb = calloc(SR_COUNT, sizeof *rb);
    for (int i = 0; i < SR_ITER; i++) {
        sb[0] = i;
        exchange(sb, rb);
        if (rb[0] != i) {
            fprintf(stderr, "exact: sendrecv data wrong\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    free(sb);
    free(rb);
}

NOINLINE static void nonblocking(void)
{
    int *sb = calloc(NB_COUNT, sizeof *sb), *rb = calloc(NB_COUNT, sizeof *rb);
    for (int i = 0; i < NB_ITER; i++) {
        MPI_Request req[2];
        MPI_Irecv(rb, NB_COUNT, MPI_INT, left, 2, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(sb, NB_COUNT, MPI_INT, right, 2, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE); /* hprof must substitute statuses */
    }
    free(sb);
    free(rb);
}

NOINLINE static void persistent(void)
{
    double *sb = calloc(PS_COUNT, sizeof *sb), *rb = calloc(PS_COUNT, sizeof *rb);
    MPI_Request rr, sr;
    MPI_Status st;
    MPI_Recv_init(rb, PS_COUNT, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &rr);
    MPI_Send_init(sb, PS_COUNT, MPI_DOUBLE, right, 3, MPI_COMM_WORLD, &sr);
    for (int i = 0; i < PS_ITER; i++) {
        MPI_Start(&rr);
        MPI_Start(&sr);
        MPI_Wait(&rr, &st);
        MPI_Wait(&sr, &st);
    }
    MPI_Request_free(&rr);
    MPI_Request_free(&sr);
    free(sb);
    free(rb);
}

NOINLINE static void anysource(void)
{
    int n = (rank + 1) * AS_COUNT;
    int *sb = calloc(n, sizeof *sb), *rb = calloc(AS_MAX, sizeof *rb);
    for (int i = 0; i < AS_ITER; i++) {
        MPI_Request req;
        MPI_Isend(sb, n, MPI_INT, right, 4, MPI_COMM_WORLD, &req);
        MPI_Recv(rb, AS_MAX, MPI_INT, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD); /* keeps rounds apart: one message per round */
    }
    free(sb);
    free(rb);
}

NOINLINE static void mpiio(void)
{
    MPI_File fh;
    char *buf = malloc(IO_SLOT);
    memset(buf, 'a' + rank % 26, IO_SLOT);
    if (MPI_File_open(MPI_COMM_WORLD, "exact_io.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) !=
        MPI_SUCCESS) {
        fprintf(stderr, "exact: MPI_File_open failed\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < IO_NBLOCK; i++) {
        MPI_Offset off = ((MPI_Offset)rank * IO_NBLOCK + i) * IO_SLOT;
        MPI_File_write_at(fh, off, buf, (i + 1) * IO_BLOCK + rank, MPI_BYTE, MPI_STATUS_IGNORE);
    }
    MPI_File_sync(fh);
    for (int i = 0; i < IO_NBLOCK; i++) {
        MPI_Status st;
        MPI_Offset off = ((MPI_Offset)rank * IO_NBLOCK + i) * IO_SLOT;
        MPI_File_read_at(fh, off, buf, (i + 1) * IO_BLOCK + rank, MPI_BYTE, &st);
    }
    MPI_File_close(&fh);
    free(buf);
}

NOINLINE static void onesided(void)
{
    /* MPI_Win_allocate: Open MPI's osc/sm serves it on one node (MPI_Win_create
     * needs an RDMA-capable btl there) */
    double *wbuf;
    double *pb = calloc(PUT_COUNT, sizeof *pb);
    int *gb = calloc(GET_COUNT, sizeof *gb);
    MPI_Win win;
    MPI_Win_allocate(((MPI_Aint)PUT_ITER * PUT_COUNT + GET_COUNT) * sizeof(double), sizeof(double),
                     MPI_INFO_NULL, MPI_COMM_WORLD, &wbuf, &win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < PUT_ITER; i++)
        MPI_Put(pb, PUT_COUNT, MPI_DOUBLE, right, (MPI_Aint)i * PUT_COUNT, PUT_COUNT, MPI_DOUBLE, win);
    MPI_Win_fence(0, win);
    MPI_Get(gb, GET_COUNT, MPI_INT, left, (MPI_Aint)PUT_ITER * PUT_COUNT, GET_COUNT, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    free(pb);
    free(gb);
}

/* The second MPI call is a tail call (also at -O0): the wrapper returns
 * straight to main, with the return address of tailcall's frame, which
 * the first call's walk redirected to a thunk. libunwind sees
 * main;MPI_Barrier for it, and so must hprof. */
NOINLINE __attribute__((optimize("O2", "optimize-sibling-calls"))) static int tailcall(void)
{
    MPI_Barrier(MPI_COMM_SELF);
    return MPI_Barrier(MPI_COMM_SELF);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    left = (rank + np - 1) % np;
    right = (rank + 1) % np;

    solver();
    int in[AR_COUNT], out[AR_COUNT];
    for (int i = 0; i < AR_COUNT; i++)
        in[i] = rank;
    for (int i = 0; i < AR_ITER; i++)
        MPI_Allreduce(in, out, AR_COUNT, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (out[0] != np * (np - 1) / 2) {
        fprintf(stderr, "exact: allreduce wrong\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    nonblocking();
    persistent();
    anysource();
    double bc[BC_COUNT];
    for (int i = 0; i < BC_ITER; i++) {
        for (int j = 0; j < BC_COUNT; j++)
            bc[j] = rank;
        MPI_Bcast(bc, BC_COUNT, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }
    mpiio();
    onesided();
    for (int i = 0; i < TC_ITER; i++)
        tailcall();
    if (rank == 0)
        printf("exact: done on %d ranks\n", np);
    MPI_Finalize();
    return 0;
}
