/* agg_tree.c - the merge's groups and their aggregators' tree. */
#include "report/merge/agg_tree.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/merge/quiet.h"

#define TAG_UP 4731
#define TAG_MEMBER 4732

int agg_tree_cap(int simulate)
{
    int cap = AGG_GROUP_LOCATIONS / (simulate > 0 ? simulate : 1);
    return cap < 1 ? 1 : cap > AGG_GROUP_RANKS ? AGG_GROUP_RANKS : cap;
}

void agg_tree_build(MPI_Comm comm, int cap, agg_tree *t)
{
    memset(t, 0, sizeof *t);
    t->comm = comm;
    PMPI_Comm_rank(comm, &t->rank);
    PMPI_Comm_size(comm, &t->size);
    t->cap = cap < 1 ? 1 : cap;
    t->leader = t->rank / t->cap * t->cap;
    t->group_rank = t->rank - t->leader;
    t->group_size = t->size - t->leader < t->cap ? t->size - t->leader : t->cap;
    t->place = t->rank / t->cap;
    t->nleaders = (t->size + t->cap - 1) / t->cap;
}

/* Level s (stride F^s): aggregator i takes i + k F^s (k = 1..F-1) while
 * i is a multiple of F^(s+1); the first level where it is not, it goes
 * to i rounded down to a multiple of F^(s+1). Children of lower levels
 * hold the lower ranges. */
int agg_tree_children(const agg_tree *t, int *children, int max)
{
    int n = 0;
    for (long stride = 1; stride < t->nleaders && t->place % (stride * AGG_FANIN) == 0; stride *= AGG_FANIN)
        for (int k = 1; k < AGG_FANIN; k++) {
            long c = t->place + k * stride;
            if (c < t->nleaders && n < max)
                children[n++] = (int)c;
        }
    return n;
}

int agg_tree_parent(const agg_tree *t)
{
    for (long stride = 1; stride < t->nleaders; stride *= AGG_FANIN)
        if (t->place % (stride * AGG_FANIN) != 0)
            return (int)(t->place - t->place % (stride * AGG_FANIN));
    return -1;
}

/* A message of any size from source: malloc'd into *buf (NULL, the
 * message taken and dropped, where memory failed). */
static int recv_any_size(MPI_Comm comm, int source, int tag, void **buf, size_t *len)
{
    MPI_Status st;
    int count = 0;
    quiet_probe(source, tag, comm, &st);
    PMPI_Get_count(&st, MPI_BYTE, &count);
    *len = count > 0 ? (size_t)count : 0;
    *buf = malloc(*len + 1);
    /* It has begun to come: taken as it comes (quiet_recv_soon). A large
     * message moves only while the receiver makes progress (MPICH's
     * rendezvous over shared memory copies a piece per test): napping
     * between tests took 9.9 s for the rows of 100,000 simulated
     * locations, 0.8 s so. */
    if (*buf)
        return quiet_recv_soon(*buf, count, MPI_BYTE, source, tag, comm) == MPI_SUCCESS ? 0 : -1;
    char none;
    PMPI_Recv(&none, 0, MPI_BYTE, source, tag, comm, MPI_STATUS_IGNORE); /* truncated: dropped */
    *len = 0;
    return -1;
}

int agg_tree_gather(const agg_tree *t, const void *mine, size_t bytes, void **blobs, size_t *sizes)
{
    if (bytes > INT32_MAX) /* said as a failure, not left out */
        mine = NULL, bytes = 0;
    if (t->group_rank != 0)
        return quiet_send(mine, (int)bytes, MPI_BYTE, t->leader, TAG_MEMBER, t->comm) == MPI_SUCCESS && mine
                   ? 0
                   : -1;
    int keep = blobs && sizes, rc = keep && mine ? 0 : -1; /* not kept: taken and dropped */
    if (keep && (blobs[0] = mine ? malloc(bytes + 1) : NULL) != NULL && bytes)
        memcpy(blobs[0], mine, bytes);
    if (keep)
        sizes[0] = blobs[0] ? bytes : 0;
    for (int i = 1; i < t->group_size; i++) {
        void *blob = NULL;
        size_t len = 0;
        if (recv_any_size(t->comm, t->rank + i, TAG_MEMBER, &blob, &len) != 0 || len == 0 || !keep) {
            free(blob);
            blob = NULL, len = 0, rc = -1;
        }
        if (keep)
            blobs[i] = blob, sizes[i] = len;
    }
    return keep && blobs[0] ? rc : -1;
}

int agg_tree_recv(const agg_tree *t, int child, void **buf, size_t *len)
{
    return recv_any_size(t->comm, child * t->cap, TAG_UP, buf, len);
}

int agg_tree_send_up(const agg_tree *t, const void *buf, size_t len)
{
    int parent = agg_tree_parent(t);
    if (parent < 0)
        return -1;
    if (len > INT32_MAX) /* an empty message says it failed: the parent is not left waiting */
        len = 0;
    return quiet_send(buf, (int)len, MPI_BYTE, parent * t->cap, TAG_UP, t->comm) == MPI_SUCCESS && len ? 0
                                                                                                       : -1;
}
