/*
 * group_rows.h - an aggregator's part of the rows (issue 41): the cells
 * its group's ranks sent for a chunk of rows become, row by row, the
 * piece of the row of the group's locations, encoded as the writer
 * stores the metric and compressed on its own (cw_piece.h) where the
 * file's rows are zlib streams.
 *
 * HPROF_SIMULATE_RANKS=K: each rank of the group stands for K ranks, its
 * locations K times over (simulated rank j = 0..K-1, its threads within);
 * j's floating values are the rank's times (1 + j / (4.0 K)), its integer
 * ones the rank's: made here, never sent or held K times elsewhere.
 */
#ifndef HPROF_GROUP_ROWS_H
#define HPROF_GROUP_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "report/cube/writer/cw_piece.h"
#include "report/merge/piece_msg.h"

/* A value as it travels: its row (a file cnode id), the sender's thread. */
typedef struct value_cell {
    int32_t row;
    int32_t thread;
    double value;
} value_cell;

/* The rows of a chunk, in file order: metric[k], row[k]. */
typedef struct chunk_units {
    const int *metric, *row;
    int n;
} chunk_units;

/* A rank's cells of a chunk, as one packet: ncols uint64 counts (per
 * metric), then the cells, metric after metric. */

typedef struct group_rows {
    int nmembers;
    const int *nthreads; /* each member's */
    long long *base;     /* each member's first location in the group's range */
    long long nlocs;     /* the range's locations */
    int simulate, zlib;
    double *dense;
    unsigned char *encoded;
    cw_piece_deflater d;
    unsigned char *zero; /* the piece of a row of zeros */
    size_t zero_len;
    uint32_t zero_adler;
} group_rows;

/* nthreads: each member's threads (kept). 0, or -1 out of memory. */
int group_rows_init(group_rows *g, const int *nthreads, int nmembers, int simulate, int zlib);
/* The members' packets of a chunk (a NULL or short one: the message
 * fails) into out, one piece per unit. 0 or -1 (out then says failed). */
int group_rows_make(group_rows *g, void *const *packets, const size_t *sizes, int ncols, const chunk_units *u,
                    piece_msg *out);
void group_rows_free(group_rows *g);

#endif
