/*
 * file_rows.h - rank 0's end of the values: each row's parts, as the
 * aggregators' tree brings them (piece_msg.h), handed to the writer in
 * file order, metric after metric (cube_writer_metric_row_pieces); the
 * rows of a metric not given are zeros. A failure (a part that failed on
 * its way, the writer's) stops the writing; the writer holds the reason.
 */
#ifndef HPROF_FILE_ROWS_H
#define HPROF_FILE_ROWS_H

#include <stddef.h>

#include "report/cube/writer/cube_writer.h"
#include "report/merge/group_rows.h"
#include "report/merge/piece_msg.h"

typedef struct file_rows {
    cube_writer *w; /* NULL after a failure */
    int metric;     /* being written, -1 before the first */
    int next;       /* its next row */
    int nmetrics, nglobal;
    const unsigned char *present; /* nmetrics bitmaps of `bytes` each: the rows with a value */
    size_t bytes;
    const int *npresent; /* their bits set */
} file_rows;

/* w NULL: nothing is written (ranks other than 0). */
void file_rows_init(file_rows *f, cube_writer *w, int nmetrics, int nglobal, const unsigned char *present,
                    size_t bytes, const int *npresent);
/* A chunk's rows (u), each from the n messages' parts in range order. */
void file_rows_write(file_rows *f, const chunk_units *u, const piece_view *v, int n);
/* After the last chunk: the last metric ended, those never begun written
 * as zeros. 0, or -1 when something failed. */
int file_rows_finish(file_rows *f);

#endif
