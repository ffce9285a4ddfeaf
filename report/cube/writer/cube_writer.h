/*
 * cube_writer.h - streaming CUBE4 (.cubex) writer.
 *
 * A .cubex file is a tar archive: anchor.xml (definitions) and, per metric
 * id, <id>.index and <id>.data (cw_rows.h: the rows listed, plain CUBEX.DATA
 * or ZCUBEX.DATA with one zlib stream per row, as cubew writes them).
 * The writer streams: definitions first, then each metric's rows in cnode
 * order, so its memory does not grow with cnodes x locations x metrics.
 *
 * The file is written to an unguessable temporary name in the target folder
 * (O_EXCL|O_NOFOLLOW, mode from the umask) and renamed into place by
 * cube_writer_commit(); cube_writer_abort() removes it. No truncated file is
 * ever left under the final name.
 *
 * All functions return 0 on success, -1 on error with a one-line reason in
 * the err buffer given to cube_writer_create (retrieve with cube_writer_error).
 */
#ifndef HPROF_CUBE_WRITER_H
#define HPROF_CUBE_WRITER_H

#include <stddef.h>

#include "report/cube/writer/cube_defs.h"

typedef struct cube_writer cube_writer;

/* overwrite_ok: 1 if an existing file at path may be replaced (the user
 * named it), 0 if an existing file makes create fail. */
cube_writer *cube_writer_create(const char *path, int overwrite_ok, char *err, size_t errlen);
int cube_writer_define(cube_writer *w, const cube_defs *defs);

/* Before define: 1 (the default) writes ZCUBEX.DATA (zlib rows) where rows
 * are long enough for it to pay (cw_rows.h), 0 plain CUBEX.DATA always, as
 * Score-P does by default. */
int cube_writer_set_compress(cube_writer *w, int on);

/* Rows for one metric, in the metric's row order: row k holds the cnode
 * cube_writer_row_cnode(w, metric, k) (for EXCLUSIVE metrics the cnode at
 * preorder position k: the identity when the cnodes were given in
 * preorder), values[] holding one value per location (processes in rank order,
 * threads within). Integer dtypes are rounded from the doubles (negative
 * values become 0 for UINT64). MINDOUBLE/MAXDOUBLE are stored as given:
 * pass 0 for both at a (cnode, location) never visited, as Score-P does
 * (Cube shows 0 there; a reader's inclusive min then also sees 0). */
int cube_writer_metric_begin(cube_writer *w, int metric);
/* The same, storing only the rows whose bit is set in present (bit r of
 * byte r/8 for row position r; npresent bits set): the index lists them,
 * as Score-P lists only the call paths a metric has. The other rows must
 * be zeros (a row that is not fails the metric); readers take them as 0.
 * MINDOUBLE and MAXDOUBLE metrics store every row all the same (pyCubexR
 * fails on a missing row of theirs). present must stay valid until
 * cube_writer_metric_end. */
int cube_writer_metric_begin_sparse(cube_writer *w, int metric, const unsigned char *present, int npresent);
int cube_writer_metric_row(cube_writer *w, int cnode, const double *values);
int cube_writer_row_cnode(const cube_writer *w, int metric, int row); /* -1: no such row */
/* n rows at once, from row position `row` on (the next one to write):
 * n x locations values, row after row, or values NULL for n rows of zeros
 * (cheap: rows of zeros are left out or compressed once). For callers that
 * hold rows in row order already (the merge, whose metrics are all
 * EXCLUSIVE). */
int cube_writer_metric_rows(cube_writer *w, int row, int n, const double *values);
int cube_writer_metric_end(cube_writer *w);

/* Rows made elsewhere, in pieces (cw_piece.h: the merge's aggregators
 * each make the part of a row of their locations). Row `row` of an
 * EXCLUSIVE metric from n pieces in location order; the stored rows
 * before it that were not given are zeros, as are those left at
 * cube_writer_metric_rows(w, next, rest, NULL). nonzero 0: the row is
 * zeros (the pieces are not read). Pieces are zlib pieces where
 * cube_rows_zlib() says so, else the encoded values. */
int cube_writer_metric_row_pieces(cube_writer *w, int row, const cube_row_piece *pieces, int n, int nonzero);
/* What the writer decides and does, for those who make the pieces: are a
 * metric's rows zlib streams (set_compress's on, nlocs locations), is row
 * stored (dtype's, begin_sparse's present and npresent), a dtype's code
 * (once per metric: rows are many) and whether it holds integers, the
 * values encoded as that dtype stores them (n x 8 bytes; returns whether
 * a bit is set). */
int cube_rows_zlib(int compress, long long nlocs);
int cube_row_stored(const char *dtype, const unsigned char *present, int npresent, int row);
int cube_dtype_code(const char *dtype);
int cube_dtype_is_integer(int code);
int cube_encode_values(unsigned char *dst, const double *v, int n, int code);

/* An archive member of the caller's own beside the CUBE data (outside a
 * metric; readers ignore members they do not know). */
int cube_writer_add_member(cube_writer *w, const char *name, const void *data, size_t len);

/* Completes the archive, fsyncs, renames into place. Frees w. */
int cube_writer_commit(cube_writer *w, char *err, size_t errlen);
/* Removes the temporary file. Frees w. */
void cube_writer_abort(cube_writer *w);

/* The file's size after commit: the bytes written so far and, when it can
 * still be committed, the end-of-archive blocks commit adds. */
long long cube_writer_bytes(const cube_writer *w);

/* The last error's one-line reason ("" if none). The err buffer given to
 * cube_writer_create must stay valid until commit or abort. */
const char *cube_writer_error(const cube_writer *w);

#endif
