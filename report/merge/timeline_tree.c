/* timeline_tree.c - the time line's streams of pieces along the tree. */
#include "report/merge/timeline_tree.h"

#include <string.h>

#define TAG_STREAM 4741 /* apart from the other phases' tags (471x-472x) */

int tl_tree_next_child(int rank, int size, int d)
{
    int span = rank & -rank;
    d = d ? d * 2 : 1;
    return (rank == 0 || d < span) && rank + d < size && d > 0 ? d : 0;
}

int tl_tree_subtree(int rank, int size, int d)
{
    return size - (rank + d) < d ? size - (rank + d) : d;
}

void tl_up_init(tl_up *u, MPI_Comm comm, int parent)
{
    u->comm = comm, u->parent = parent, u->next = 0;
    for (int k = 0; k < TL_WINDOW; k++)
        u->req[k] = MPI_REQUEST_NULL;
}

void tl_up_piece(void *ctx, const unsigned char *bytes, size_t len)
{
    tl_up *u = ctx;
    int k = u->next;
    if (u->req[k] != MPI_REQUEST_NULL)
        quiet_wait(&u->req[k]);
    if (len)
        memcpy(u->buf[k], bytes, len);
    if (PMPI_Issend(u->buf[k], (int)len, MPI_BYTE, u->parent, TAG_STREAM, u->comm, &u->req[k]) != MPI_SUCCESS)
        u->req[k] = MPI_REQUEST_NULL;
    u->next = (k + 1) % TL_WINDOW;
}

void tl_up_finish(tl_up *u)
{
    for (int k = 0; k < TL_WINDOW; k++)
        if (u->req[k] != MPI_REQUEST_NULL)
            quiet_wait(&u->req[k]);
}

void tl_down_init(tl_down *d, MPI_Comm comm, int child)
{
    d->comm = comm, d->child = child;
    d->len = d->at = 0;
    d->last = d->bad = 0;
}

/* The next piece; 0 when the stream has ended. */
static int next_piece(tl_down *d)
{
    MPI_Status st;
    int count = 0;
    if (d->last)
        return 0;
    quiet_probe(d->child, TAG_STREAM, d->comm, &st);
    PMPI_Get_count(&st, MPI_BYTE, &count);
    if (count < 0 || count > TL_PIECE)
        count = 0;
    PMPI_Recv(d->buf, TL_PIECE, MPI_BYTE, d->child, TAG_STREAM, d->comm, MPI_STATUS_IGNORE);
    d->len = (size_t)count, d->at = 0;
    d->last = count < TL_PIECE;
    return 1;
}

uint64_t tl_down_u64(tl_down *d)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && !d->bad; shift += 7) {
        while (d->at == d->len)
            if (!next_piece(d)) {
                d->bad = 1;
                return 0;
            }
        unsigned char c = d->buf[d->at++];
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return v;
    }
    d->bad = 1;
    return 0;
}

int tl_down_bytes(tl_down *d, unsigned char *out, size_t len)
{
    while (len && !d->bad) {
        while (d->at == d->len)
            if (!next_piece(d)) {
                d->bad = 1;
                return -1;
            }
        size_t k = d->len - d->at < len ? d->len - d->at : len;
        memcpy(out, d->buf + d->at, k);
        d->at += k, out += k, len -= k;
    }
    return d->bad ? -1 : 0;
}

long long tl_down_i64(tl_down *d)
{
    uint64_t v = tl_down_u64(d);
    return (long long)(v >> 1) ^ -(long long)(v & 1);
}

int tl_down_drain(tl_down *d)
{
    int left = d->at < d->len;
    while (next_piece(d))
        left |= d->len > 0;
    return left || d->bad ? -1 : 0;
}
