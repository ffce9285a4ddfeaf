/*
 * timeline_tree.h - the time line's parts on their way to rank 0 along a
 * binomial tree (rank r's parent: r with its lowest set bit cleared; its
 * subtree: ranks r to r + lowest set bit - 1, in order), as streams of
 * pieces of TL_PIECE bytes: a stream ends with a piece shorter than that
 * (maybe empty). Each rank sends its pieces synchronously, TL_WINDOW at a
 * time at most, so that a parent busy with another child holds no more
 * than that of each (no unexpected messages pile up on rank 0), while a
 * sender need not wait for its parent to take each piece (a nap of each
 * at every level of the tree).
 */
#ifndef HPROF_TIMELINE_TREE_H
#define HPROF_TIMELINE_TREE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "report/merge/quiet.h"

#define TL_PIECE QUIET_PIECE
#define TL_WINDOW 16

/* The gap to rank's child after rank + d (d 0: the first), 0 when none is
 * left: rank + 1, + 2, + 4 ... in order of their ranks. */
int tl_tree_next_child(int rank, int size, int d);
/* Ranks in the subtree of rank + d (d one of rank's gaps). */
int tl_tree_subtree(int rank, int size, int d);

/* A stream to the parent. */
typedef struct tl_up {
    MPI_Comm comm;
    int parent, next;
    MPI_Request req[TL_WINDOW];
    unsigned char buf[TL_WINDOW][TL_PIECE];
} tl_up;

void tl_up_init(tl_up *u, MPI_Comm comm, int parent);
/* A tl_sink (timeline_pack.h): ctx is the tl_up. */
void tl_up_piece(void *ctx, const unsigned char *bytes, size_t len);
/* Waits until the parent took every piece. */
void tl_up_finish(tl_up *u);

/* A stream from a child, read a number at a time. */
typedef struct tl_down {
    MPI_Comm comm;
    int child;
    size_t len, at;
    int last; /* the short piece came */
    int bad;  /* read past the stream's end */
    unsigned char buf[TL_PIECE];
} tl_down;

void tl_down_init(tl_down *d, MPI_Comm comm, int child);
uint64_t tl_down_u64(tl_down *d);
long long tl_down_i64(tl_down *d);
/* The next len bytes into out; -1 (and the stream bad) past its end. */
int tl_down_bytes(tl_down *d, unsigned char *out, size_t len);
/* Takes the rest of the stream, so that the child is left waiting for
 * nothing. Returns 0 when nothing was left over and nothing was bad. */
int tl_down_drain(tl_down *d);

#endif
