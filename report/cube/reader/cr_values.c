/* cr_values.c - metric index and data decoding. */
#include "report/cube/reader/cr_values.h"
#include "report/cube/reader/cr_util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>


enum vt {
    V_I8,
    V_U8,
    V_I16,
    V_U16,
    V_I32,
    V_U32,
    V_I64,
    V_U64,
    V_F64
};

static const struct dtype_info {
    const char *name;
    int type, size, aggr;
} dtypes[] = {
    { "INT8", V_I8, 1, CUBE_AGGR_SUM },
    { "UINT8", V_U8, 1, CUBE_AGGR_SUM },
    { "CHAR", V_I8, 1, CUBE_AGGR_SUM },
    { "INT16", V_I16, 2, CUBE_AGGR_SUM },
    { "UINT16", V_U16, 2, CUBE_AGGR_SUM },
    { "INT32", V_I32, 4, CUBE_AGGR_SUM },
    { "UINT32", V_U32, 4, CUBE_AGGR_SUM },
    { "INT64", V_I64, 8, CUBE_AGGR_SUM },
    { "UINT64", V_U64, 8, CUBE_AGGR_SUM },
    { "DOUBLE", V_F64, 8, CUBE_AGGR_SUM },
    { "MINDOUBLE", V_F64, 8, CUBE_AGGR_MIN },
    { "MAXDOUBLE", V_F64, 8, CUBE_AGGR_MAX },
    /* the older names cubelib still reads and writes (cube_remap2 takes
     * them from Score-P's remapping.spec: INTEGER, FLOAT) */
    { "FLOAT", V_F64, 8, CUBE_AGGR_SUM },
    { "INTEGER", V_I64, 8, CUBE_AGGR_SUM },
    { "SIGNED INTEGER", V_I64, 8, CUBE_AGGR_SUM },
    { "UNSIGNED INTEGER", V_U64, 8, CUBE_AGGR_SUM },
    { "INT", V_I32, 4, CUBE_AGGR_SUM },
    { "SIGNED INT", V_I32, 4, CUBE_AGGR_SUM },
    { "UNSIGNED INT", V_U32, 4, CUBE_AGGR_SUM },
    { "SHORT INT", V_I16, 2, CUBE_AGGR_SUM },
    { "SIGNED SHORT INT", V_I16, 2, CUBE_AGGR_SUM },
    { "UNSIGNED SHORT INT", V_U16, 2, CUBE_AGGR_SUM },
};

static const struct dtype_info *find_dtype(const char *name)
{
    for (size_t i = 0; name && i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (strcmp(dtypes[i].name, name) == 0)
            return &dtypes[i];
    return NULL;
}

int cr_dtype_setup(cube_metric *m)
{
    const struct dtype_info *d = find_dtype(m->dtype);
    if (m->kind == CUBE_KIND_DERIVED) {
        m->note = "derived metric (CubePL expression), not evaluated";
        return -1;
    }
    if (!d) {
        m->note = "value type not supported (compound or unknown dtype), skipped";
        return -1;
    }
    m->aggr = d->aggr;
    m->is_integer = d->type != V_F64;
    return 0;
}

static double decode(const unsigned char *s, int type, int swap)
{
    switch (type) {
    case V_I8: return (int8_t)s[0];
    case V_U8: return s[0];
    case V_I16: return (int16_t)cr_get16(s, swap);
    case V_U16: return cr_get16(s, swap);
    case V_I32: return (int32_t)cr_get32(s, swap);
    case V_U32: return cr_get32(s, swap);
    case V_I64: return (double)(int64_t)cr_get64(s, swap);
    case V_U64: return (double)cr_get64(s, swap);
    default: {
        uint64_t bits = cr_get64(s, swap);
        double d;
        memcpy(&d, &bits, sizeof d);
        return d;
    }
    }
}

/* The parsed index: rows, and the position of each row (NULL: dense). */
typedef struct index_info {
    int swap;
    size_t rows;
    const unsigned char *cids;
} index_info;

static int parse_index(const cube_profile *p, const cube_metric *m, const unsigned char *b, size_t len,
                       index_info *ix, char *err, size_t errlen)
{
    if (len < 18 || memcmp(b, "CUBEX.INDEX", 11) != 0)
        return cr_err(err, errlen, "%d.index: not a CUBE index", m->id);
    uint32_t endian;
    memcpy(&endian, b + 11, 4);
    if (endian != 1 && endian != 0x01000000u)
        return cr_err(err, errlen, "%d.index: bad byte-order marker", m->id);
    ix->swap = endian != 1;
    unsigned format = b[17];
    if (format == 3) { /* dense: every cnode, in order */
        ix->rows = (size_t)p->ncnodes;
        ix->cids = NULL;
        return 0;
    }
    if (format != 1)
        return cr_err(err, errlen, "%d.index: unsupported index format %u", m->id, format);
    if (len == 18) { /* cubelib's tools: no rows, no count */
        ix->rows = 0;
        ix->cids = NULL;
        return 0;
    }
    if (len < 22)
        return cr_err(err, errlen, "%d.index: truncated", m->id);
    uint32_t n = cr_get32(b + 18, ix->swap);
    if (n > (uint32_t)p->ncnodes || len - 22 != (size_t)n * 4)
        return cr_err(err, errlen, "%d.index: %u entries do not match its size or the %d cnodes", m->id, n,
                      p->ncnodes);
    /* a row listed twice would be counted twice by views that add rows up */
    unsigned char *seen = calloc((size_t)p->ncnodes / 8 + 1, 1);
    if (!seen)
        return cr_err(err, errlen, "out of memory");
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        uint32_t c = cr_get32(b + 22 + 4 * (size_t)i, ix->swap);
        if (c >= (uint32_t)p->ncnodes)
            rc = cr_err(err, errlen, "%d.index: entry out of range", m->id);
        else if (seen[c / 8] & (1u << (c % 8)))
            rc = cr_err(err, errlen, "%d.index: entry %u listed twice", m->id, c);
        else
            seen[c / 8] |= (unsigned char)(1u << (c % 8));
    }
    free(seen);
    if (rc)
        return rc;
    ix->rows = n;
    ix->cids = b + 22;
    return 0;
}

/* Rows are decoded one at a time into row[] (nlocs doubles) and handed to
 * fn with their cnode: memory O(locations), whatever the profile's size. */
typedef struct row_sink {
    const cube_profile *p;
    const index_info *ix;
    const int *seq;
    const struct dtype_info *d;
    double *row;
    cube_row_fn fn;
    void *ctx;
} row_sink;

/* Decodes row r (raw bytes in file order) and passes it on. */
static void put_row(const row_sink *s, size_t r, const unsigned char *src)
{
    size_t pos = s->ix->cids ? cr_get32(s->ix->cids + 4 * r, s->ix->swap) : r;
    for (int l = 0; l < s->p->nlocs; l++)
        s->row[l] = decode(src + (size_t)l * (size_t)s->d->size, s->d->type, s->ix->swap);
    s->fn(s->ctx, s->seq[pos], s->row);
}

static int read_plain(const row_sink *s, const unsigned char *b, size_t len, size_t rowbytes, int id,
                      char *err, size_t errlen)
{
    if ((len - 10) / rowbytes != s->ix->rows || (len - 10) % rowbytes)
        return cr_err(err, errlen, "%d.data: size %zu does not match %zu rows of %zu bytes", id, len,
                      s->ix->rows, rowbytes);
    for (size_t r = 0; s->fn && r < s->ix->rows; r++)
        put_row(s, r, b + 10 + r * rowbytes);
    return 0;
}

/* Inflates one block of whole rows that starts at row r0, handing each row
 * on as it completes: memory O(one row), however large the block. */
static int inflate_rows(const row_sink *s, const unsigned char *src, size_t srclen, size_t r0,
                        unsigned char *row, unsigned char *done, int id, char *err, size_t errlen)
{
    size_t rowbytes = (size_t)s->p->nlocs * (size_t)s->d->size;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK)
        return cr_err(err, errlen, "out of memory");
    z.next_in = (Bytef *)src;
    z.avail_in = (uInt)srclen;
    int zrc = Z_OK, rc = 0;
    for (size_t r = r0; zrc != Z_STREAM_END && rc == 0; r++) {
        z.next_out = row;
        z.avail_out = (uInt)rowbytes;
        zrc = inflate(&z, Z_NO_FLUSH);
        size_t got = rowbytes - z.avail_out;
        if (zrc == Z_STREAM_END && got == 0 && r > r0)
            break;
        if ((zrc != Z_OK && zrc != Z_STREAM_END) || got != rowbytes)
            rc = cr_err(err, errlen, "%d.data: corrupt compressed block", id);
        else if (r >= s->ix->rows || (done[r / 8] & (1u << (r % 8))))
            rc =
                cr_err(err, errlen, "%d.data: a compressed block overlaps another or ends past the rows", id);
        else {
            done[r / 8] |= (unsigned char)(1u << (r % 8));
            put_row(s, r, row);
        }
    }
    inflateEnd(&z);
    return rc;
}

/* ZCUBEX.DATA: uint64 count, count x {uncompressed offset, compressed
 * offset, compressed size} (uint64 each), then count zlib streams, each one
 * or more whole rows (cubelib and hprof write one stream a row; hprof's
 * files of 2026 before November blocks of about 256 KiB). The table, not the
 * physical order, places each block. */
static int read_zlib(const row_sink *s, const unsigned char *b, size_t len, size_t rowbytes, int id,
                     char *err, size_t errlen)
{
    int swap = s->ix->swap;
    if (len < 19)
        return cr_err(err, errlen, "%d.data: truncated", id);
    uint64_t n = cr_get64(b + 11, swap);
    if (n > s->ix->rows || n > (len - 19) / 24 || (n == 0 && s->ix->rows))
        return cr_err(err, errlen, "%d.data: %llu compressed blocks for the %zu rows of its index", id,
                      (unsigned long long)n, s->ix->rows);
    const unsigned char *seg = b + 19 + 24 * n;
    size_t seglen = len - 19 - 24 * n, rows = s->ix->rows;
    /* zlib expands at most CR_ZLIB_MAX_RATIO times: more rows than the
     * compressed bytes can make (rows sharing one block) are a lie */
    if ((double)rows * (double)rowbytes > (double)seglen * CR_ZLIB_MAX_RATIO)
        return cr_err(err, errlen,
                      "%d.data: %zu rows of %zu bytes cannot come from %zu compressed bytes "
                      "(zlib expands at most %d times): corrupt or forged file",
                      id, rows, rowbytes, seglen, CR_ZLIB_MAX_RATIO);
    if (!s->fn)
        return 0; /* sizes checked, rows not read */
    unsigned char *row = malloc(rowbytes), *done = calloc(rows / 8 + 1, 1);
    int rc = row && done ? 0 : cr_err(err, errlen, "out of memory");
    for (uint64_t k = 0; k < n && rc == 0; k++) {
        const unsigned char *e = b + 19 + 24 * k;
        uint64_t ustart = cr_get64(e, swap), cstart = cr_get64(e + 8, swap), csize = cr_get64(e + 16, swap);
        if (ustart % rowbytes || ustart / rowbytes >= rows || cstart > seglen || csize > seglen - cstart)
            rc = cr_err(err, errlen, "%d.data: bad compressed block table", id);
        else
            rc = inflate_rows(s, seg + cstart, (size_t)csize, (size_t)(ustart / rowbytes), row, done, id, err,
                              errlen);
    }
    free(row), free(done);
    return rc;
}

static int read_data(const row_sink *s, const unsigned char *b, size_t len, int id, char *err, size_t errlen)
{
    size_t rowbytes = (size_t)s->p->nlocs * (size_t)s->d->size;
    if (rowbytes == 0)
        return 0;
    if (len >= 11 && memcmp(b, "ZCUBEX.DATA", 11) == 0)
        return read_zlib(s, b, len, rowbytes, id, err, errlen);
    if (len >= 10 && memcmp(b, "CUBEX.DATA", 10) == 0)
        return read_plain(s, b, len, rowbytes, id, err, errlen);
    return cr_err(err, errlen, "%d.data: not a CUBE data file", id);
}

/* The members of a metric's values: <id>.index and <id>.data, a ghost
 * metric's ghost_<id>.index and ghost_<id>.data (cubelib's names). */
static void member_names(const cube_metric *m, char *iname, char *dname, size_t len)
{
    const char *pre = m->ghost ? "ghost_" : "";
    snprintf(iname, len, "%s%d.index", pre, m->id);
    snprintf(dname, len, "%s%d.data", pre, m->id);
}

int cr_has_values(const cr_archive *a, const cube_metric *m)
{
    char iname[40], dname[40];
    member_names(m, iname, dname, sizeof iname);
    return cr_tar_find(a, iname) || cr_tar_find(a, dname);
}

int cr_scan_values(const cube_profile *p, const cube_metric *m, const cr_archive *a, const unsigned char *buf,
                   const int *seq, cube_row_fn fn, void *ctx, char *err, size_t errlen)
{
    char iname[40], dname[40];
    member_names(m, iname, dname, sizeof iname);
    const cr_member *im = cr_tar_find(a, iname), *dm = cr_tar_find(a, dname);
    if (!im && !dm) /* Cube omits all-zero metrics */
        return 0;
    if (!im || !dm)
        return cr_err(err, errlen, "metric %s: %s missing", m->uniq_name ? m->uniq_name : "?",
                      im ? dname : iname);
    index_info ix;
    if (parse_index(p, m, buf + im->off, im->size, &ix, err, errlen) < 0)
        return -1;
    double *row = malloc(sizeof *row * ((size_t)p->nlocs + 1));
    if (!row)
        return cr_err(err, errlen, "out of memory");
    row_sink s = { p, &ix, seq, find_dtype(m->dtype), row, fn, ctx };
    int rc = read_data(&s, buf + dm->off, dm->size, m->id, err, errlen);
    free(row);
    return rc;
}

typedef struct store {
    double *dst;
    size_t nlocs;
} store;

static void store_row(void *ctx, int cnode, const double *row)
{
    store *s = ctx;
    memcpy(s->dst + (size_t)cnode * s->nlocs, row, sizeof *row * s->nlocs);
}

int cr_load_values(const cube_profile *p, cube_metric *m, const cr_archive *a, const unsigned char *buf,
                   const int *seq, double *vals, char *err, size_t errlen)
{
    store s = { vals, (size_t)p->nlocs };
    if (cr_scan_values(p, m, a, buf, seq, store_row, &s, err, errlen) < 0)
        return -1;
    if (m->kind == CUBE_KIND_INCLUSIVE)
        m->incl = vals;
    else
        m->excl = vals;
    m->loaded = 1;
    return 0;
}
