/*
 * piece_msg.h - a chunk of metric rows in pieces, as the merge's
 * aggregators send them up their tree (agg_tree.h): for each row of the
 * chunk, the part of the row of a contiguous range of locations, as the
 * writer stores it (cw_piece.h: raw deflate, or the encoded values).
 *
 * Layout: uint64 failed, nrows, rawlen (bytes each piece stands for: the
 * range's locations x 8); nrows x { uint64 len; uint32 adler, nonzero };
 * the pieces, row after row. An aggregator joins its own message and its
 * children's (ranges in order) into one; rank 0 hands a row's pieces from
 * the messages to the writer as they are.
 */
#ifndef HPROF_PIECE_MSG_H
#define HPROF_PIECE_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "report/cube/writer/cube_defs.h"

typedef struct piece_entry {
    uint64_t len;
    uint32_t adler, nonzero;
} piece_entry;

typedef struct piece_msg {
    unsigned char *buf;
    size_t len, cap;
    int nrows, added;
    uint64_t rawlen;
} piece_msg;

/* A message of nrows pieces of rawlen bytes each; failed: the header
 * alone, saying so. 0, or -1 out of memory (then a failed one). */
int piece_msg_begin(piece_msg *m, int nrows, uint64_t rawlen, int failed);
/* The next row's piece. 0 or -1 (the message then says it failed). */
int piece_msg_add(piece_msg *m, const unsigned char *data, size_t len, uint32_t adler, int nonzero);
void piece_msg_free(piece_msg *m);

/* A message received: checked, or failed (wrong size, says it failed). */
typedef struct piece_view {
    const piece_entry *entries;
    const unsigned char *data;
    size_t *offsets; /* of each row's piece in data */
    int nrows, failed;
    uint64_t rawlen;
} piece_view;
void piece_view_of(piece_view *v, const void *buf, size_t len, int nrows);
void piece_view_free(piece_view *v);
/* Row k's piece of v. */
cube_row_piece piece_view_row(const piece_view *v, int k);

/* The messages of n consecutive ranges as one (a failed one, when one of
 * them failed). */
int piece_msg_join(piece_msg *out, const piece_view *v, int n, int nrows);

#endif
