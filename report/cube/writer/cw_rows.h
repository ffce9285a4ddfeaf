/*
 * cw_rows.h - one metric's <id>.index and <id>.data members.
 *
 * Stored rows: every row, or only the rows a caller declares present (the
 * rest are zeros), listed by position in the index as Score-P lists only
 * the call paths a metric has; a metric with no row present stores one row
 * of zeros (pyCubexR divides by the count of rows).
 * Data: plain "CUBEX.DATA" then the rows; or, where rows are long enough
 * for it to pay (CW_ZROW_MIN_BYTES), "ZCUBEX.DATA", uint64 n, n x {uint64
 * uncompressed offset, uint64 offset after the table, uint64 size}, then n
 * zlib streams, one a row, as cubew writes them: cubelib inflates each
 * table entry into a buffer of one row. Each entry costs 24 bytes and a
 * stream at least 8 more: rows shorter than that gain nothing from it.
 */
#ifndef HPROF_CW_ROWS_H
#define HPROF_CW_ROWS_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "report/cube/writer/cube_defs.h"
#include "report/cube/writer/cw_out.h"
#include "report/cube/writer/cw_tar.h"

#define CW_ZROW_MIN_BYTES 256 /* 32 locations */

typedef struct cw_rows {
    cw_out *out;
    char *msg; /* the writer's error buffer */
    size_t msglen;
    int nrows, next; /* rows of the metric; the next to come */
    size_t rowbytes;
    const unsigned char *present; /* bit r: row r stored; NULL: all */
    int none_present;             /* present, with no bit set: row 0 stored */
    int nstored, stored;          /* rows the member holds; stored so far */
    int zrows;                    /* stored as zlib streams */
    cw_member data;
    long long table_off, seg_start;
    uint64_t *table;                     /* 3 per stored row */
    unsigned char *zbuf, *prev, *prev_z; /* a stream; the last row and its stream */
    size_t zcap, prev_zlen;
    unsigned char *zero_z; /* a row of zeros, compressed once */
    unsigned char *zeros;  /* and as it is (rows given in pieces) */
    size_t zero_zlen;
    z_stream z; /* reset for every row */
    int z_ready;
} cw_rows;

/* Writes the index and the data member's head. present: NULL for every
 * row, else a bitmap of nrows bits with npresent set. compress: zlib
 * streams wanted, where rows are long enough. 0 or -1 (msg says why). */
int cw_rows_begin(cw_rows *r, cw_out *out, char *msg, size_t msglen, int file_id, long long mtime, int nrows,
                  int nlocs, int compress, const unsigned char *present, int npresent);
/* The next row, encoded (nlocs x 8 bytes); nonzero: a bit of it is set. */
int cw_rows_put(cw_rows *r, const unsigned char *row, int nonzero);
/* Whether row is stored (cw_rows_begin's present and npresent). */
int cw_rows_is_stored(const unsigned char *present, int npresent, int row);
/* Row `row` (the next, or a later one: stored rows before it become
 * zeros) from n pieces (cw_piece.h) laid end to end; nonzero: a bit of
 * it is set. The pieces' rawlen add up to the row's bytes. */
int cw_rows_put_pieces(cw_rows *r, int row, const cube_row_piece *p, int n, int nonzero);
/* After the last row: the table, the member's end. Frees what begin took. */
int cw_rows_end(cw_rows *r);
void cw_rows_free(cw_rows *r);

#endif
