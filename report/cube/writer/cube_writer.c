/*
 * cube_writer.c - the streaming CUBE4 writer: a state machine over the
 * temporary file, the tar member streams, anchor.xml and the per-metric
 * index and data members.
 *
 * Per metric <id> (id = preorder position in the metric tree; cnode ids
 * are preorder positions in the call tree, as Score-P's), <id>.index and
 * <id>.data as cw_rows.h describes. Rows sit in the metric's row order
 * (preorder for EXCLUSIVE metrics, cubelib's wide order for INCLUSIVE
 * ones), so rows are accepted in row order only (cube_writer_row_cnode)
 * and streamed at once.
 * All numbers are in native byte order, which the index marker records.
 */
#include "report/cube/writer/cube_writer.h"
#include "report/cube/writer/cw_anchor.h"
#include "report/cube/writer/cw_order.h"
#include "report/cube/writer/cw_out.h"
#include "report/cube/writer/cw_rows.h"
#include "report/cube/writer/cw_tar.h"
#include "report/cube/writer/cw_tmpfile.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum state {
    ST_CREATED,
    ST_DEFINED,
    ST_IN_METRIC,
    ST_FAILED
};
enum dtype {
    DT_UINT64,
    DT_INT64,
    DT_DOUBLE,
    DT_MIN,
    DT_MAX
};

typedef struct wmetric {
    int file_id;
    int dtype;
    int inclusive;
    int done;
} wmetric;

struct cube_writer {
    cw_tmpfile file;
    char *err; /* the caller's buffer */
    size_t errlen;
    char msg[256]; /* the current error */
    int state;
    long long mtime;
    int ncnodes, nlocs, nmetrics;
    wmetric *metrics;
    int compress;                /* ZCUBEX (1) or CUBEX (0) data */
    int *pre_cnode, *wide_cnode; /* row -> cnode per metric kind */
    int cur, next_row;           /* the metric being written */
    cw_rows rows;                /* its members */
    unsigned char *row;          /* one row, encoded */
    cw_out out;                  /* last: holds the 64 KiB buffer */
};

/* Records the error, removes the temporary file, refuses further calls. */
static int fail(cube_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(cube_writer *w, const char *fmt, ...)
{
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->msg, sizeof w->msg, fmt, ap);
        va_end(ap);
    }
    if (w->err && w->errlen)
        snprintf(w->err, w->errlen, "%s", w->msg);
    w->state = ST_FAILED;
    cw_tmp_discard(&w->file);
    return -1;
}

/* An output error: cw_out already wrote the reason into w->msg. */
static int check_out(cube_writer *w)
{
    return w->out.failed ? fail(w, NULL) : 0;
}

static int parse_dtype(const char *s)
{
    static const char *const names[] = { "UINT64", "INT64", "DOUBLE", "MINDOUBLE", "MAXDOUBLE" };
    for (int i = 0; s && i < 5; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

cube_writer *cube_writer_create(const char *path, int overwrite_ok, char *err, size_t errlen)
{
    cube_writer *w = calloc(1, sizeof *w);
    if (!w) {
        if (err && errlen)
            snprintf(err, errlen, "cannot create %s: out of memory", path);
        return NULL;
    }
    if (cw_tmp_create(&w->file, path, overwrite_ok, err, errlen) < 0) {
        free(w);
        return NULL;
    }
    w->err = err;
    w->errlen = errlen;
    w->mtime = (long long)time(NULL);
    w->compress = 1;
    cw_out_init(&w->out, w->file.fd, w->msg, sizeof w->msg);
    return w;
}

int cube_writer_set_compress(cube_writer *w, int on)
{
    if (w->state != ST_CREATED)
        return w->state == ST_FAILED ? -1 : fail(w, "cube writer: set_compress after define");
    w->compress = on != 0;
    return 0;
}

const char *cube_writer_error(const cube_writer *w)
{
    return w->msg;
}

long long cube_writer_bytes(const cube_writer *w)
{
    /* commit frees the writer: its end-of-archive blocks are counted before */
    return w->out.pos + (w->state == ST_DEFINED ? CW_TAR_END_BYTES : 0);
}

/* ---- definitions -------------------------------------------------------- */

static const char *check_metrics(const cube_defs *d)
{
    for (int i = 0; i < d->nmetrics; i++) {
        const cube_metric_def *m = &d->metrics[i];
        int dt = parse_dtype(m->dtype);
        if (!m->uniq_name || !m->uniq_name[0])
            return "a metric has no unique name";
        if (dt < 0)
            return "a metric has an unsupported dtype (UINT64, INT64, DOUBLE, MINDOUBLE, MAXDOUBLE)";
        if (m->inclusive && (dt == DT_MIN || dt == DT_MAX))
            return "MINDOUBLE/MAXDOUBLE metrics must be stored exclusive";
        if (m->parent < -1 || m->parent >= i)
            return "a metric's parent must precede it";
        for (int j = 0; j < i; j++)
            if (strcmp(d->metrics[j].uniq_name, m->uniq_name) == 0)
                return "two metrics share a unique name";
    }
    return NULL;
}

static const char *check_defs(const cube_defs *d, long long *nlocs)
{
    if (d->nmetrics < 0 || d->nregions < 0 || d->ncnodes < 0 || d->nnodes < 0 || d->nprocs < 1 ||
        d->nattrs < 0)
        return "bad definition counts (at least one process is needed)";
    if ((d->nmetrics && !d->metrics) || (d->nregions && !d->regions) || (d->ncnodes && !d->cnodes) ||
        (d->nnodes && !d->nodes) || !d->procs || (d->nattrs && (!d->attr_keys || !d->attr_values)))
        return "a definition array is missing";
    const char *why = check_metrics(d);
    if (why)
        return why;
    for (int i = 0; i < d->ncnodes; i++) {
        if (d->cnodes[i].parent < -1 || d->cnodes[i].parent >= i)
            return "a cnode's parent must precede it";
        if (d->cnodes[i].region < 0 || d->cnodes[i].region >= d->nregions)
            return "a cnode names an unknown region";
    }
    *nlocs = 0;
    for (int p = 0; p < d->nprocs; p++) {
        if (d->procs[p].node < 0 || d->procs[p].node >= d->nnodes)
            return "a process names an unknown node";
        if (d->procs[p].nthreads < 1)
            return "a process has no threads";
        *nlocs += d->procs[p].nthreads;
    }
    return *nlocs > (1 << 24) ? "too many locations" : NULL;
}

static int write_anchor(cube_writer *w, const cube_defs *d, const cw_forest *mf, const cw_forest *cf)
{
    cw_member m;
    cw_tar_begin(&w->out, &m, "anchor.xml", w->mtime);
    cw_anchor_write(&w->out, d, mf, cf);
    cw_tar_end(&w->out, &m, '\n');
    return check_out(w);
}

static int keep_metric_info(cube_writer *w, const cube_defs *d, const cw_forest *mf)
{
    w->metrics = calloc((size_t)(d->nmetrics ? d->nmetrics : 1), sizeof *w->metrics);
    if (!w->metrics)
        return fail(w, "out of memory");
    for (int i = 0; i < d->nmetrics; i++) {
        w->metrics[i].file_id = mf->pre_pos[i];
        w->metrics[i].dtype = parse_dtype(d->metrics[i].dtype);
        w->metrics[i].inclusive = d->metrics[i].inclusive;
    }
    w->nmetrics = d->nmetrics;
    return 0;
}

static int build_forests(const cube_defs *d, cw_forest *mf, cw_forest *cf)
{
    int n = d->nmetrics > d->ncnodes ? d->nmetrics : d->ncnodes;
    int *parent = malloc(sizeof *parent * (size_t)(n ? n : 1));
    int any_incl = 0, rc = -1;
    if (!parent)
        return -1;
    for (int i = 0; i < d->nmetrics; i++) {
        parent[i] = d->metrics[i].parent;
        any_incl |= d->metrics[i].inclusive;
    }
    if (cw_forest_build(mf, parent, d->nmetrics, 0) == 0) {
        for (int i = 0; i < d->ncnodes; i++)
            parent[i] = d->cnodes[i].parent;
        rc = cw_forest_build(cf, parent, d->ncnodes, any_incl);
        if (rc < 0)
            cw_forest_free(mf);
    }
    free(parent);
    return rc;
}

/* Row k of an EXCLUSIVE metric holds the cnode at preorder position k; of
 * an INCLUSIVE one, the cnode at wide position k. */
static int keep_row_orders(cube_writer *w, const cw_forest *cf)
{
    w->pre_cnode = malloc(sizeof(int) * (size_t)(cf->n ? cf->n : 1));
    if (!w->pre_cnode)
        return fail(w, "out of memory");
    memcpy(w->pre_cnode, cf->pre, sizeof(int) * (size_t)cf->n);
    if (!cf->wide_pos)
        return 0;
    w->wide_cnode = malloc(sizeof(int) * (size_t)(cf->n ? cf->n : 1));
    if (!w->wide_cnode)
        return fail(w, "out of memory");
    for (int c = 0; c < cf->n; c++)
        w->wide_cnode[cf->wide_pos[c]] = c;
    return 0;
}

int cube_writer_define(cube_writer *w, const cube_defs *defs)
{
    if (w->state != ST_CREATED)
        return w->state == ST_FAILED ? -1 : fail(w, "cube writer: define called twice");
    long long nlocs;
    const char *why = check_defs(defs, &nlocs);
    if (why)
        return fail(w, "cube writer: %s", why);
    cw_forest mf, cf;
    if (build_forests(defs, &mf, &cf) < 0)
        return fail(w, "out of memory");
    int rc = write_anchor(w, defs, &mf, &cf);
    if (rc == 0)
        rc = keep_metric_info(w, defs, &mf);
    if (rc == 0)
        rc = keep_row_orders(w, &cf);

    cw_forest_free(&mf);
    cw_forest_free(&cf);
    if (rc < 0)
        return -1;
    w->ncnodes = defs->ncnodes;
    w->nlocs = (int)nlocs;
    w->state = ST_DEFINED;
    return 0;
}

/* ---- metric rows --------------------------------------------------------- */

int cube_writer_metric_begin_sparse(cube_writer *w, int metric, const unsigned char *present, int npresent)
{
    if (w->state != ST_DEFINED)
        return w->state == ST_FAILED ? -1 : fail(w, "cube writer: metric_begin out of order");
    if (metric < 0 || metric >= w->nmetrics || w->metrics[metric].done)
        return fail(w, "cube writer: bad or repeated metric %d", metric);
    if (!w->row && !(w->row = malloc((size_t)w->nlocs * 8 + 1)))
        return fail(w, "out of memory");
    /* pyCubexR cannot read a MIN/MAXDOUBLE metric that leaves rows out
     * (it makes the missing rows' zeros from a type they lack) */
    int dt = w->metrics[metric].dtype;
    if (dt == DT_MIN || dt == DT_MAX)
        present = NULL;
    if (cw_rows_begin(&w->rows, &w->out, w->msg, sizeof w->msg, w->metrics[metric].file_id, w->mtime,
                      w->ncnodes, w->nlocs, w->compress, present, npresent) < 0)
        return fail(w, NULL);
    w->cur = metric;
    w->next_row = 0;
    w->state = ST_IN_METRIC;
    return 0;
}

int cube_writer_metric_begin(cube_writer *w, int metric)
{
    return cube_writer_metric_begin_sparse(w, metric, NULL, 0);
}

int cube_writer_row_cnode(const cube_writer *w, int metric, int row)
{
    if (w->state == ST_CREATED || w->state == ST_FAILED || metric < 0 || metric >= w->nmetrics || row < 0 ||
        row >= w->ncnodes)
        return -1;
    return w->metrics[metric].inclusive ? w->wide_cnode[row] : w->pre_cnode[row];
}

/* Integers: rounded, clamped to the type's range (NaN becomes 0).
 * Returns whether any bit of the row is set. */
static int encode_row(unsigned char *dst, const double *v, int n, int dtype)
{
    uint64_t any = 0;
    for (int i = 0; i < n; i++, dst += 8) {
        double x = v[i];
        if (dtype == DT_UINT64) {
            uint64_t u = !(x > 0) ? 0 : x >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)floor(x + 0.5);
            memcpy(dst, &u, 8);
        } else if (dtype == DT_INT64) {
            int64_t s = isnan(x)                      ? 0
                        : x >= 9223372036854775807.0  ? INT64_MAX
                        : x <= -9223372036854775808.0 ? INT64_MIN
                                                      : (int64_t)llround(x);
            memcpy(dst, &s, 8);
        } else {
            memcpy(dst, &x, 8);
        }
        uint64_t bits;
        memcpy(&bits, dst, 8);
        any |= bits;
    }
    return any != 0;
}

/* Appends n rows (n x nlocs values), or n rows of zeros (values NULL). */
static int append_rows(cube_writer *w, int n, const double *values)
{
    int dtype = w->metrics[w->cur].dtype;
    if (!values)
        memset(w->row, 0, (size_t)w->nlocs * 8);
    for (int k = 0; k < n; k++) {
        int nonzero = values && encode_row(w->row, values + (size_t)k * (size_t)w->nlocs, w->nlocs, dtype);
        if (cw_rows_put(&w->rows, w->row, nonzero) < 0)
            return fail(w, NULL);
        w->next_row++;
    }
    return 0;
}

int cube_writer_metric_row(cube_writer *w, int cnode, const double *values)
{
    if (w->state != ST_IN_METRIC)
        return w->state == ST_FAILED ? -1 : fail(w, "cube writer: metric_row outside a metric");
    int expected = w->next_row < w->ncnodes ? cube_writer_row_cnode(w, w->cur, w->next_row) : -1;
    if (cnode != expected || !values)
        return fail(w, "cube writer: row for cnode %d, expected cnode %d", cnode, expected);
    return append_rows(w, 1, values);
}

int cube_writer_metric_rows(cube_writer *w, int row, int n, const double *values)
{
    if (w->state != ST_IN_METRIC)
        return w->state == ST_FAILED ? -1 : fail(w, "cube writer: metric_rows outside a metric");
    if (row != w->next_row || n < 0 || n > w->ncnodes - row)
        return fail(w, "cube writer: %d rows from row %d, expected row %d of %d", n, row, w->next_row,
                    w->ncnodes);
    return append_rows(w, n, values);
}

int cube_writer_metric_row_pieces(cube_writer *w, int row, const cube_row_piece *pieces, int n, int nonzero)
{
    if (w->state != ST_IN_METRIC)
        return w->state == ST_FAILED ? -1 : fail(w, "cube writer: metric_row_pieces outside a metric");
    if (w->metrics[w->cur].inclusive)
        return fail(w, "cube writer: rows in pieces of an INCLUSIVE metric");
    if (cw_rows_put_pieces(&w->rows, row, pieces, n, nonzero) < 0)
        return fail(w, NULL);
    w->next_row = row + 1;
    return 0;
}

int cube_rows_zlib(int compress, long long nlocs)
{
    return compress && nlocs * 8 >= CW_ZROW_MIN_BYTES;
}

int cube_row_stored(const char *dtype, const unsigned char *present, int npresent, int row)
{
    int dt = parse_dtype(dtype);
    return cw_rows_is_stored(dt == DT_MIN || dt == DT_MAX ? NULL : present, npresent, row);
}

int cube_dtype_code(const char *dtype)
{
    int dt = parse_dtype(dtype);
    return dt < 0 ? DT_DOUBLE : dt;
}

int cube_dtype_is_integer(int code)
{
    return code == DT_UINT64 || code == DT_INT64;
}

int cube_encode_values(unsigned char *dst, const double *v, int n, int code)
{
    return encode_row(dst, v, n, code);
}

int cube_writer_metric_end(cube_writer *w)
{
    if (w->state != ST_IN_METRIC)
        return w->state == ST_FAILED ? -1 : fail(w, "cube writer: metric_end outside a metric");
    if (cw_rows_end(&w->rows) < 0)
        return fail(w, NULL);
    w->metrics[w->cur].done = 1;
    w->state = ST_DEFINED;
    return 0;
}

int cube_writer_add_member(cube_writer *w, const char *name, const void *data, size_t len)
{
    if (w->state != ST_DEFINED)
        return w->state == ST_FAILED ? -1
                                     : fail(w, "cube writer: add_member inside a metric or before define");
    cw_member m;
    cw_tar_begin(&w->out, &m, name, w->mtime);
    cw_out_write(&w->out, data, len);
    cw_tar_end(&w->out, &m, '\n');
    return check_out(w);
}

/* ---- completion ---------------------------------------------------------- */

static void destroy(cube_writer *w)
{
    cw_tmp_discard(&w->file);
    cw_rows_free(&w->rows);
    free(w->row);
    free(w->metrics), free(w->pre_cnode), free(w->wide_cnode);
    free(w);
}

int cube_writer_commit(cube_writer *w, char *err, size_t errlen)
{
    w->err = err;
    w->errlen = errlen;
    if (w->state == ST_CREATED || w->state == ST_IN_METRIC)
        fail(w, "cube writer: commit %s", w->state == ST_CREATED ? "before define" : "inside a metric");
    else if (w->state == ST_DEFINED) {
        cw_tar_finish(&w->out);
        cw_out_flush(&w->out);
        if (check_out(w) == 0 && cw_tmp_commit(&w->file, w->msg, sizeof w->msg) < 0)
            fail(w, NULL);
    } else if (err && errlen) {
        snprintf(err, errlen, "%s", w->msg); /* the earlier failure */
    }
    int rc = w->state == ST_FAILED ? -1 : 0;
    destroy(w);
    return rc;
}

void cube_writer_abort(cube_writer *w)
{
    if (w)
        destroy(w);
}
