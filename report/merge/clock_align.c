/* clock_align.c - the ranks' start offsets along a binomial tree. */
#include "report/merge/clock_align.h"

#include "core/clock.h"
#include "core/timeline.h"
#include "report/merge/quiet.h"

#define TAG_ALIGN 4713
#define ALIGN_TRIES 5
#define ALIGN_GOOD_NS 100000 /* a round trip this short needs no other */

/* Messages from a parent are pairs (what, value). */
enum {
    ASK,  /* value: the parent's time since its start; answered with the child's */
    DONE, /* value: the child's offset */
    WAKE  /* the child's turn is next: wait for the question awake */
};

static long long elapsed_ns(void)
{
    return (long long)(hprof_now_ns() - timeline_origin());
}

/* The lowest set bit of r; for rank 0, the first power of two >= size. */
static int span_of(int r, int size)
{
    int low = 1;
    if (r != 0)
        return r & -r;
    while (low < size)
        low <<= 1;
    return low;
}

/* How much later than this rank the child started, by its clock. */
static long long measure_child(MPI_Comm comm, int child)
{
    long long best_rtt = -1, offset = 0, m[2];
    for (int k = 0; k < ALIGN_TRIES && !(best_rtt >= 0 && best_rtt < ALIGN_GOOD_NS); k++) {
        long long a = elapsed_ns(), e;
        m[0] = ASK, m[1] = a;
        PMPI_Send(m, 2, MPI_LONG_LONG, child, TAG_ALIGN, comm);
        quiet_recv_soon(&e, 1, MPI_LONG_LONG, child, TAG_ALIGN, comm);
        long long b = elapsed_ns();
        if (best_rtt < 0 || b - a < best_rtt)
            best_rtt = b - a, offset = a + (b - a) / 2 - e;
    }
    return offset;
}

/* Waits for the parent's questions until it says this rank's offset:
 * asleep until woken (MPICH's blocking calls poll: ranks waiting so took
 * the cores from those that talk, 13 s at 32 ranks on 2 cores), then
 * yielding the core between tests. */
static long long answer_parent(MPI_Comm comm, int parent)
{
    for (long long m[2], awake = 0;; awake = 1) {
        if (awake)
            quiet_recv_soon(m, 2, MPI_LONG_LONG, parent, TAG_ALIGN, comm);
        else
            quiet_recv(m, 2, MPI_LONG_LONG, parent, TAG_ALIGN, comm);
        if (m[0] == DONE)
            return m[1];
        if (m[0] == ASK) {
            long long e = elapsed_ns();
            PMPI_Send(&e, 1, MPI_LONG_LONG, parent, TAG_ALIGN, comm);
        }
    }
}

/* The gap to this rank's child after rank + d (d 0: the first one), 0
 * when none is left: rank + span/2, + span/4, ... + 1, those below size.
 * The largest subtree comes first, so that every round each rank that
 * knows its offset measures one more. */
static int next_gap(int rank, int size, int d)
{
    for (d = d ? d / 2 : span_of(rank, size) / 2; d >= 1 && rank + d >= size; d /= 2)
        ;
    return d;
}

long long clock_align_offset(MPI_Comm comm)
{
    int rank, size;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    long long offset = rank == 0 ? 0 : answer_parent(comm, rank & (rank - 1)), wake[2] = { WAKE, 0 };
    int d = next_gap(rank, size, 0);
    if (d)
        PMPI_Send(wake, 2, MPI_LONG_LONG, rank + d, TAG_ALIGN, comm);
    for (int next; d; d = next) { /* each next child wakes while the one before is measured */
        if ((next = next_gap(rank, size, d)) != 0)
            PMPI_Send(wake, 2, MPI_LONG_LONG, rank + next, TAG_ALIGN, comm);
        long long done[2] = { DONE, offset + measure_child(comm, rank + d) };
        PMPI_Send(done, 2, MPI_LONG_LONG, rank + d, TAG_ALIGN, comm);
    }
    return offset;
}
