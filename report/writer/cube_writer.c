/*
 * cube_writer.c - the streaming CUBE4 writer: a state machine over the
 * temporary file, the tar member streams, anchor.xml and the per-metric
 * index and data members.
 *
 * Layout written, per metric <id> (id = preorder position in the metric
 * tree; cnode ids are preorder positions in the call tree, as Score-P's):
 *   <id>.index  "CUBEX.INDEX", uint32 1 (byte-order check), uint16 0
 *               (version), uint8 1 (sparse), uint32 n, then positions
 *               0..n-1: every cnode is listed.
 *   <id>.data   compressed (default): "ZCUBEX.DATA", uint64 b, b x {uint64
 *               uncompressed offset, uint64 offset after the table, uint64
 *               size}, then b zlib streams, each a block of whole rows;
 *               plain: "CUBEX.DATA", then the rows.
 * Rows sit in the metric's row order (preorder for EXCLUSIVE metrics,
 * cubelib's wide order for INCLUSIVE ones) and the blocks follow each
 * other in that order, so a reader that inflates the blocks one after
 * another (pyCubexR) and one that follows the table (cubelib, hprof's)
 * see the same rows. Rows are therefore accepted in row order only
 * (cube_writer_row_cnode) and streamed at once.
 * All numbers are in native byte order, which the index marker records.
 */
#include "cube_writer.h"
#include "cw_anchor.h"
#include "cw_order.h"
#include "cw_out.h"
#include "cw_tar.h"
#include "cw_tmpfile.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

enum state { ST_CREATED, ST_DEFINED, ST_IN_METRIC, ST_FAILED };
enum dtype { DT_UINT64, DT_INT64, DT_DOUBLE, DT_MIN, DT_MAX };

typedef struct wmetric {
    int file_id;
    int dtype;
    int inclusive;
    int done;
} wmetric;

struct cube_writer {
    cw_tmpfile file;
    char *err;                  /* the caller's buffer */
    size_t errlen;
    char msg[256];              /* the current error */
    int state;
    long long mtime;
    int ncnodes, nlocs, nmetrics;
    wmetric *metrics;
    int compress;               /* ZCUBEX (1) or CUBEX (0) data */
    int *pre_cnode, *wide_cnode; /* row -> cnode per metric kind */
    int cur, next_row;          /* the metric being written */
    cw_member data;
    long long table_off, seg_start;
    uint64_t *table;            /* 3 per block */
    unsigned char *block, *zbuf;
    size_t rowbytes, zcap;
    int rows_per_block, nblocks, block_rows; /* block_rows: rows in `block` now */
    int block_nonzero;          /* a bit of `block` is set */
    unsigned char *zero_z;      /* a full block of zeros, compressed once */
    uLongf zero_zlen;
    cw_out out;                 /* last: holds the 64 KiB buffer */
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
    if (d->nmetrics < 0 || d->nregions < 0 || d->ncnodes < 0 || d->nnodes < 0 ||
        d->nprocs < 1 || d->nattrs < 0)
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

static int write_index(cube_writer *w, int file_id)
{
    char name[32];
    unsigned char head[22];
    uint32_t one = 1, n = (uint32_t)w->ncnodes;
    uint16_t version = 0;
    memcpy(head, "CUBEX.INDEX", 11);
    memcpy(head + 11, &one, 4);
    memcpy(head + 15, &version, 2);
    head[17] = 1;                           /* sparse format, listing all */
    memcpy(head + 18, &n, 4);
    cw_member m;
    snprintf(name, sizeof name, "%d.index", file_id);
    cw_tar_begin(&w->out, &m, name, w->mtime);
    cw_out_write(&w->out, head, sizeof head);
    uint32_t ids[1024];
    for (uint32_t i = 0; i < n; i += 1024) {
        uint32_t k = n - i < 1024 ? n - i : 1024;
        for (uint32_t j = 0; j < k; j++)
            ids[j] = i + j;
        cw_out_write(&w->out, ids, 4 * (size_t)k);
    }
    cw_tar_end(&w->out, &m, 0);
    return check_out(w);
}

/* Blocks of whole rows, about CW_BLOCK_BYTES uncompressed: large enough that
 * the table and zlib's per-stream overhead stay small next to the data. */
#define CW_BLOCK_BYTES (256u << 10)

static int start_data(cube_writer *w, int file_id)
{
    char name[32];
    snprintf(name, sizeof name, "%d.data", file_id);
    cw_tar_begin(&w->out, &w->data, name, w->mtime);
    if (!w->compress) {
        cw_out_write(&w->out, "CUBEX.DATA", 10);
        return check_out(w);
    }
    uint64_t n = (uint64_t)w->nblocks;
    cw_out_write(&w->out, "ZCUBEX.DATA", 11);
    cw_out_write(&w->out, &n, 8);
    w->table_off = w->out.pos;
    cw_out_zeros(&w->out, (size_t)n * 24);  /* the table, patched at the end */
    w->seg_start = w->out.pos;
    return check_out(w);
}

static int alloc_row_buffers(cube_writer *w)
{
    w->rowbytes = (size_t)w->nlocs * 8;
    size_t per = CW_BLOCK_BYTES / w->rowbytes;
    w->rows_per_block = per < 1 ? 1 : per > (size_t)INT_MAX ? INT_MAX : (int)per;
    w->nblocks = (w->ncnodes + w->rows_per_block - 1) / w->rows_per_block;
    size_t blockbytes = (size_t)w->rows_per_block * w->rowbytes;
    w->zcap = compressBound((uLong)blockbytes);
    w->table = calloc((size_t)(w->nblocks ? w->nblocks : 1) * 3, sizeof *w->table);
    w->block = malloc(blockbytes);
    w->zbuf = w->compress ? malloc(w->zcap) : NULL;
    w->block_rows = 0;
    w->block_nonzero = 0;
    return (w->table && w->block && (w->zbuf || !w->compress)) ? 0 : fail(w, "out of memory");
}

static void free_row_buffers(cube_writer *w)
{
    free(w->table), free(w->block), free(w->zbuf);
    w->table = NULL, w->block = w->zbuf = NULL;
}

int cube_writer_metric_begin(cube_writer *w, int metric)
{
    if (w->state != ST_DEFINED)
        return w->state == ST_FAILED ? -1 : fail(w, "cube writer: metric_begin out of order");
    if (metric < 0 || metric >= w->nmetrics || w->metrics[metric].done)
        return fail(w, "cube writer: bad or repeated metric %d", metric);
    int id = w->metrics[metric].file_id;
    if (alloc_row_buffers(w) < 0 || write_index(w, id) < 0 || start_data(w, id) < 0)
        return -1;
    w->cur = metric;
    w->next_row = 0;
    w->state = ST_IN_METRIC;
    return 0;
}

int cube_writer_row_cnode(const cube_writer *w, int metric, int row)
{
    if (w->state == ST_CREATED || w->state == ST_FAILED || metric < 0 || metric >= w->nmetrics ||
        row < 0 || row >= w->ncnodes)
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
            int64_t s = isnan(x) ? 0 : x >= 9223372036854775807.0 ? INT64_MAX
                      : x <= -9223372036854775808.0 ? INT64_MIN : (int64_t)llround(x);
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

/* A full block of zeros compresses to the same stream every time: most
 * blocks of a large profile (metrics no call path has, such as bytes put
 * by one-sided calls in a program that makes none) are such blocks. The
 * stream for `block`, or NULL when it is not a full block of zeros. */
static const unsigned char *zero_block(cube_writer *w, size_t len, uLongf *zlen)
{
    if (w->block_nonzero || w->block_rows != w->rows_per_block)
        return NULL;
    if (!w->zero_z) {
        unsigned char *z = malloc(w->zcap);
        uLongf n = (uLongf)w->zcap;
        if (!z || compress2(z, &n, w->block, (uLong)len, Z_BEST_SPEED) != Z_OK) {
            free(z);
            return NULL;
        }
        w->zero_z = z;
        w->zero_zlen = n;
    }
    *zlen = w->zero_zlen;
    return w->zero_z;
}

/* Writes the rows gathered in `block`: as they are, or as one zlib stream
 * and its table entry. */
static int flush_block(cube_writer *w)
{
    size_t len = (size_t)w->block_rows * w->rowbytes;
    if (len == 0)
        return 0;
    if (!w->compress) {
        cw_out_write(&w->out, w->block, len);
    } else {
        uLongf zlen = (uLongf)w->zcap;
        const unsigned char *z = zero_block(w, len, &zlen);
        if (!z && compress2(w->zbuf, &zlen, w->block, (uLong)len, Z_BEST_SPEED) != Z_OK)
            return fail(w, "compression failed");
        size_t k = (size_t)(w->next_row - w->block_rows) / (size_t)w->rows_per_block;
        w->table[3 * k] = (uint64_t)(w->next_row - w->block_rows) * w->rowbytes;
        w->table[3 * k + 1] = (uint64_t)(w->out.pos - w->seg_start);
        w->table[3 * k + 2] = (uint64_t)zlen;
        cw_out_write(&w->out, z ? z : w->zbuf, zlen);
    }
    w->block_rows = 0;
    w->block_nonzero = 0;
    return check_out(w);
}

/* Appends n rows (n x nlocs values) to the metric, flushing full blocks. */
static int append_rows(cube_writer *w, int n, const double *values)
{
    int dtype = w->metrics[w->cur].dtype;
    for (int k = 0; k < n; k++, values += w->nlocs) {
        w->block_nonzero |= encode_row(w->block + (size_t)w->block_rows * w->rowbytes, values, w->nlocs,
                                       dtype);
        w->block_rows++;
        w->next_row++;
        if (w->block_rows == w->rows_per_block && flush_block(w) < 0)
            return -1;
    }
    return 0;
}

/* n rows of zeros: full blocks of them go out as the one cached stream. */
static int append_zero_rows(cube_writer *w, int n)
{
    while (n > 0) {
        int k = w->rows_per_block - w->block_rows < n ? w->rows_per_block - w->block_rows : n;
        memset(w->block + (size_t)w->block_rows * w->rowbytes, 0, (size_t)k * w->rowbytes);
        w->block_rows += k;
        w->next_row += k;
        n -= k;
        if (w->block_rows == w->rows_per_block && flush_block(w) < 0)
            return -1;
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
    return values ? append_rows(w, n, values) : append_zero_rows(w, n);
}

int cube_writer_metric_end(cube_writer *w)
{
    if (w->state != ST_IN_METRIC)
        return w->state == ST_FAILED ? -1 : fail(w, "cube writer: metric_end outside a metric");
    if (w->next_row != w->ncnodes)
        return fail(w, "cube writer: metric ended after %d of %d cnodes", w->next_row, w->ncnodes);
    if (flush_block(w) < 0)
        return -1;
    if (w->compress)
        cw_out_patch(&w->out, w->table_off, w->table, (size_t)w->nblocks * 24);
    cw_tar_end(&w->out, &w->data, 0);
    free_row_buffers(w);
    if (check_out(w) < 0)
        return -1;
    w->metrics[w->cur].done = 1;
    w->state = ST_DEFINED;
    return 0;
}

int cube_writer_add_member(cube_writer *w, const char *name, const void *data, size_t len)
{
    if (w->state != ST_DEFINED)
        return w->state == ST_FAILED ? -1 : fail(w, "cube writer: add_member inside a metric or before define");
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
    free_row_buffers(w);
    free(w->metrics), free(w->pre_cnode), free(w->wide_cnode), free(w->zero_z);
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
        snprintf(err, errlen, "%s", w->msg);   /* the earlier failure */
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
