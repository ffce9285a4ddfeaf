/*
 * merge_floor.c - what the merge's communication costs without hprof
 * (bench/run.py, section mergescale; issue 41): the rounds the merge at
 * MPI_Finalize makes (report/merge/; its 9 collectives with the time
 * line, HPROF_VERBOSE=1 says), in its order and with its way of
 * waiting (test, then a nap that doubles from 20 us to 1 ms, 4 ms once
 * 50 ms have passed; a yield between tests where it spins), but with
 * payloads of a few bytes and no work between them. Rank 0 prints each
 * phase's wall time in the words of hprof's HPROF_VERBOSE=1 line:
 * "merge_floor: P ranks, unified definitions S s, written S s, values S
 * s, time line S s, merge+write S s".
 */
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TAG_DEFS 4711
#define TAG_IDS 4712
#define TAG_ALIGN 4713
#define TAG_COUNT 4714
#define TAG_UP 4731
#define TAG_MEMBER 4732
#define TAG_STREAM 4741

#define GROUP 16 /* AGG_GROUP_RANKS: members of an aggregator */
#define FANIN 16 /* AGG_FANIN: an aggregator's children a level */
#define ALIGN_TRIES 5
#define ALIGN_GOOD_NS 100000

static int rank, size;
static MPI_Comm comm;

/* ---- waiting as the merge waits (report/merge/quiet.c) ---------------------- */

static void nap(long *ns, long *waited)
{
    struct timespec ts = { 0, *ns };
    nanosleep(&ts, NULL);
    *waited += *ns;
    long most = *waited >= 50000000L ? 4000000L : 1000000L;
    if (*ns < most)
        *ns = *ns * 2 < most ? *ns * 2 : most;
}

static void wait_napping(MPI_Request *req)
{
    long ns = 20000, waited = 0;
    for (int done = 0;;) {
        PMPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        nap(&ns, &waited);
    }
}

static void wait_spinning(MPI_Request *req)
{
    for (int done = 0;;) {
        PMPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        sched_yield();
    }
}

static void probe_napping(int source, int tag)
{
    long ns = 20000, waited = 0;
    MPI_Status st;
    for (int found = 0;;) {
        PMPI_Iprobe(source, tag, comm, &found, &st);
        if (found)
            return;
        nap(&ns, &waited);
    }
}

static void send_napping(const void *buf, int n, int dest, int tag)
{
    MPI_Request req;
    PMPI_Isend(buf, n, MPI_BYTE, dest, tag, comm, &req);
    wait_napping(&req);
}

static void recv_napping(void *buf, int n, int source, int tag)
{
    MPI_Request req;
    PMPI_Irecv(buf, n, MPI_BYTE, source, tag, comm, &req);
    wait_napping(&req);
}

static void recv_spinning(void *buf, int n, int source, int tag)
{
    MPI_Request req;
    PMPI_Irecv(buf, n, MPI_BYTE, source, tag, comm, &req);
    wait_spinning(&req);
}

/* probe, then take it (the merge's messages of unknown size) */
static void take(void *buf, int n, int source, int tag)
{
    probe_napping(source, tag);
    PMPI_Recv(buf, n, MPI_BYTE, source, tag, comm, MPI_STATUS_IGNORE);
}

static void allreduce(int n)
{
    char in[64] = { 0 }, out[64];
    MPI_Request req;
    PMPI_Iallreduce(in, out, n, MPI_BYTE, MPI_BOR, comm, &req);
    wait_napping(&req);
}

static void bcast(int n)
{
    char buf[128] = { 0 };
    MPI_Request req;
    PMPI_Ibcast(buf, n, MPI_BYTE, 0, comm, &req);
    wait_napping(&req);
}

/* ---- the phases' rounds --------------------------------------------------- */

/* merge.c's first agreement (events, simulated ranks); defs_reduce.c: up
 * a binomial tree (each parent takes its children in turn), the count of
 * ids and the ids back down in reverse. */
static void definitions(void)
{
    char b[8] = { 0 };
    int kids[32], nkids = 0, parent = -1;
    allreduce(64);
    for (int step = 1; step < size; step <<= 1) {
        if (rank & step) {
            parent = rank - step;
            send_napping(b, sizeof b, parent, TAG_DEFS);
            break;
        }
        if (rank + step < size) {
            take(b, sizeof b, rank + step, TAG_DEFS);
            kids[nkids++] = rank + step;
        }
    }
    if (parent >= 0) {
        recv_napping(b, 4, parent, TAG_COUNT);
        take(b, sizeof b, parent, TAG_IDS);
    }
    for (int k = nkids - 1; k >= 0; k--)
        send_napping(b, 4, kids[k], TAG_COUNT);
    for (int k = nkids - 1; k >= 0; k--)
        send_napping(b, sizeof b, kids[k], TAG_IDS);
}

/* agg_tree.c: members to their aggregator (probed, then taken spinning),
 * aggregators up a tree of fan-in FANIN to rank 0. */
static void aggregators_up(void)
{
    char b[8] = { 0 };
    int leader = rank / GROUP * GROUP, place = rank / GROUP, nleaders = (size + GROUP - 1) / GROUP;
    if (rank != leader) {
        send_napping(b, sizeof b, leader, TAG_MEMBER);
        return;
    }
    for (int i = 1; i < GROUP && rank + i < size; i++) {
        probe_napping(rank + i, TAG_MEMBER);
        recv_spinning(b, sizeof b, rank + i, TAG_MEMBER);
    }
    long stride = 1;
    for (; stride < nleaders && place % (stride * FANIN) == 0; stride *= FANIN)
        for (int k = 1; k < FANIN && place + k * stride < nleaders; k++) {
            probe_napping((int)(place + k * stride) * GROUP, TAG_UP);
            recv_spinning(b, sizeof b, (int)(place + k * stride) * GROUP, TAG_UP);
        }
    if (place != 0)
        send_napping(b, sizeof b, (int)(place - place % (stride * FANIN)) * GROUP, TAG_UP);
}

/* merge.c: the layout up the aggregators, then rank 0 says whether it
 * opened the output and wrote the definitions. */
static void written(void)
{
    aggregators_up();
    bcast(4);
}

/* collect.c: the plan's two reductions, the members' threads at their
 * aggregator and an agreement, then one chunk (at these sizes) of rows
 * up the aggregators. */
static void values(void)
{
    allreduce(16);
    allreduce(64);
    aggregators_up();
    allreduce(4);
    aggregators_up();
}

/* clock_align.c: rank 0's offsets down a binomial tree, each child woken
 * before its turn, then measured in round trips until one is short. */
static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int next_gap(int d)
{
    int span = rank & -rank;
    if (rank == 0)
        for (span = 1; span < size; span <<= 1)
            ;
    for (d = d ? d / 2 : span / 2; d >= 1 && rank + d >= size; d /= 2)
        ;
    return d;
}

static void answer_parent(int parent)
{
    for (long long m[2], awake = 0;; awake = 1) {
        if (awake)
            recv_spinning(m, sizeof m, parent, TAG_ALIGN);
        else
            recv_napping(m, sizeof m, parent, TAG_ALIGN);
        if (m[0] == 1)
            return;
        if (m[0] == 0) {
            long long e = now_ns();
            PMPI_Send(&e, sizeof e, MPI_BYTE, parent, TAG_ALIGN, comm);
        }
    }
}

static void measure_child(int child)
{
    long long best = -1, m[2] = { 0, 0 }, e;
    for (int k = 0; k < ALIGN_TRIES && !(best >= 0 && best < ALIGN_GOOD_NS); k++) {
        long long a = now_ns();
        PMPI_Send(m, sizeof m, MPI_BYTE, child, TAG_ALIGN, comm);
        recv_spinning(&e, sizeof e, child, TAG_ALIGN);
        if (best < 0 || now_ns() - a < best)
            best = now_ns() - a;
    }
}

static void clock_align(void)
{
    long long wake[2] = { 2, 0 }, done[2] = { 1, 0 };
    if (rank != 0)
        answer_parent(rank & (rank - 1));
    int d = next_gap(0);
    if (d)
        PMPI_Send(wake, sizeof wake, MPI_BYTE, rank + d, TAG_ALIGN, comm);
    for (int next; d; d = next) {
        if ((next = next_gap(d)) != 0)
            PMPI_Send(wake, sizeof wake, MPI_BYTE, rank + next, TAG_ALIGN, comm);
        measure_child(rank + d);
        PMPI_Send(done, sizeof done, MPI_BYTE, rank + d, TAG_ALIGN, comm);
    }
}

/* timeline_tree.c: each rank's stream (here one short piece) to its
 * binomial parent after its children's, taken in order. */
static void stream_up(void)
{
    char b[8] = { 0 };
    int span = rank & -rank;
    for (int d = 1; (rank == 0 || d < span) && rank + d < size; d *= 2)
        take(b, sizeof b, rank + d, TAG_STREAM);
    if (rank != 0) {
        MPI_Request req;
        PMPI_Issend(b, sizeof b, MPI_BYTE, rank & (rank - 1), TAG_STREAM, comm, &req);
        wait_napping(&req);
    }
}

/* path_series.c and timeline_file.c: the paths' flags and the time
 * line's sizes agreed, the paths summed and chosen, the clocks aligned,
 * the streams. */
static void time_line(void)
{
    char in[64] = { 0 }, out[64];
    MPI_Request req;
    allreduce(24);
    PMPI_Ireduce(in, out, 64, MPI_BYTE, MPI_BOR, 0, comm, &req);
    wait_napping(&req);
    bcast(68);
    clock_align();
    stream_up();
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD); /* MPI_Finalize's wait for every rank */
    MPI_Request req;
    PMPI_Comm_idup(MPI_COMM_WORLD, &comm, &req);
    wait_napping(&req);
    double t[5];
    t[0] = MPI_Wtime();
    definitions();
    t[1] = MPI_Wtime();
    written();
    t[2] = MPI_Wtime();
    values();
    t[3] = MPI_Wtime();
    time_line();
    t[4] = MPI_Wtime();
    bcast(4);
    if (rank == 0)
        printf("merge_floor: %d ranks, unified definitions %.4f s, written %.4f s, values %.4f s, "
               "time line %.4f s, merge+write %.4f s\n",
               size, t[1] - t[0], t[2] - t[1], t[3] - t[2], t[4] - t[3], t[4] - t[0]);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
