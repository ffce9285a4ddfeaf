/* cr_values.c - metric index and data decoding. */
#include "cr_values.h"
#include "cr_util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MAX_CELLS ((size_t)1 << 28)     /* cnodes x locations per metric */

enum vt { V_I8, V_U8, V_I16, V_U16, V_I32, V_U32, V_I64, V_U64, V_F64 };

static const struct dtype_info {
    const char *name;
    int type, size, aggr;
} dtypes[] = {
    { "INT8", V_I8, 1, CUBE_AGGR_SUM },     { "UINT8", V_U8, 1, CUBE_AGGR_SUM },
    { "CHAR", V_I8, 1, CUBE_AGGR_SUM },     { "INT16", V_I16, 2, CUBE_AGGR_SUM },
    { "UINT16", V_U16, 2, CUBE_AGGR_SUM },  { "INT32", V_I32, 4, CUBE_AGGR_SUM },
    { "UINT32", V_U32, 4, CUBE_AGGR_SUM },  { "INT64", V_I64, 8, CUBE_AGGR_SUM },
    { "UINT64", V_U64, 8, CUBE_AGGR_SUM },  { "DOUBLE", V_F64, 8, CUBE_AGGR_SUM },
    { "MINDOUBLE", V_F64, 8, CUBE_AGGR_MIN }, { "MAXDOUBLE", V_F64, 8, CUBE_AGGR_MAX },
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

static int parse_index(const cube_profile *p, const cube_metric *m, const unsigned char *b,
                       size_t len, index_info *ix, char *err, size_t errlen)
{
    if (len < 18 || memcmp(b, "CUBEX.INDEX", 11) != 0)
        return cr_err(err, errlen, "%d.index: not a CUBE index", m->id);
    uint32_t endian;
    memcpy(&endian, b + 11, 4);
    if (endian != 1 && endian != 0x01000000u)
        return cr_err(err, errlen, "%d.index: bad byte-order marker", m->id);
    ix->swap = endian != 1;
    unsigned format = b[17];
    if (format == 3) {                  /* dense: every cnode, in order */
        ix->rows = (size_t)p->ncnodes;
        ix->cids = NULL;
        return 0;
    }
    if (format != 1)
        return cr_err(err, errlen, "%d.index: unsupported index format %u", m->id, format);
    if (len < 22)
        return cr_err(err, errlen, "%d.index: truncated", m->id);
    uint32_t n = cr_get32(b + 18, ix->swap);
    if (n > (uint32_t)p->ncnodes || len - 22 != (size_t)n * 4)
        return cr_err(err, errlen, "%d.index: %u entries do not match its size or the %d cnodes",
                      m->id, n, p->ncnodes);
    for (uint32_t i = 0; i < n; i++)
        if (cr_get32(b + 22 + 4 * (size_t)i, ix->swap) >= (uint32_t)p->ncnodes)
            return cr_err(err, errlen, "%d.index: entry out of range", m->id);
    ix->rows = n;
    ix->cids = b + 22;
    return 0;
}

typedef struct row_sink {
    const cube_profile *p;
    const index_info *ix;
    const int *seq;
    const struct dtype_info *d;
    double *dst;
} row_sink;

/* Stores row r (raw bytes in file order) at its cnode. */
static void put_row(const row_sink *s, size_t r, const unsigned char *src)
{
    size_t pos = s->ix->cids ? cr_get32(s->ix->cids + 4 * r, s->ix->swap) : r;
    size_t cn = (size_t)s->seq[pos];
    double *dst = s->dst + cn * (size_t)s->p->nlocs;
    for (int l = 0; l < s->p->nlocs; l++)
        dst[l] = decode(src + (size_t)l * (size_t)s->d->size, s->d->type, s->ix->swap);
}

static int read_plain(const row_sink *s, const unsigned char *b, size_t len, size_t rowbytes,
                      int id, char *err, size_t errlen)
{
    if ((len - 10) / rowbytes != s->ix->rows || (len - 10) % rowbytes)
        return cr_err(err, errlen, "%d.data: size %zu does not match %zu rows of %zu bytes",
                      id, len, s->ix->rows, rowbytes);
    for (size_t r = 0; r < s->ix->rows; r++)
        put_row(s, r, b + 10 + r * rowbytes);
    return 0;
}

/* ZCUBEX.DATA: uint64 count, count x {uncompressed offset, compressed
 * offset, compressed size} (uint64 each), then one zlib stream per row.
 * The table, not the physical order, places each row (the writer may
 * write rows out of order). */
static int read_zlib(const row_sink *s, const unsigned char *b, size_t len, size_t rowbytes,
                     int id, char *err, size_t errlen)
{
    int swap = s->ix->swap;
    if (len < 19)
        return cr_err(err, errlen, "%d.data: truncated", id);
    uint64_t n = cr_get64(b + 11, swap);
    if (n != s->ix->rows || n > (len - 19) / 24)
        return cr_err(err, errlen, "%d.data: %llu compressed rows, index says %zu",
                      id, (unsigned long long)n, s->ix->rows);
    const unsigned char *seg = b + 19 + 24 * n;
    size_t seglen = len - 19 - 24 * n;
    unsigned char *row = malloc(rowbytes);
    if (!row)
        return cr_err(err, errlen, "out of memory");
    int rc = 0;
    for (uint64_t k = 0; k < n && rc == 0; k++) {
        const unsigned char *e = b + 19 + 24 * k;
        uint64_t ustart = cr_get64(e, swap), cstart = cr_get64(e + 8, swap), csize = cr_get64(e + 16, swap);
        uLongf out = rowbytes;
        if (ustart % rowbytes || ustart / rowbytes >= n || cstart > seglen || csize > seglen - cstart)
            rc = cr_err(err, errlen, "%d.data: bad compressed row table", id);
        else if (uncompress(row, &out, seg + cstart, (uLong)csize) != Z_OK || out != rowbytes)
            rc = cr_err(err, errlen, "%d.data: corrupt compressed row", id);
        else
            put_row(s, (size_t)(ustart / rowbytes), row);
    }
    free(row);
    return rc;
}

static int read_data(const row_sink *s, const unsigned char *b, size_t len, int id,
                     char *err, size_t errlen)
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

int cr_load_values(const cube_profile *p, cube_metric *m, const cr_archive *a,
                   const unsigned char *buf, const int *seq, char *err, size_t errlen)
{
    char iname[32], dname[32];
    snprintf(iname, sizeof iname, "%d.index", m->id);
    snprintf(dname, sizeof dname, "%d.data", m->id);
    const cr_member *im = cr_tar_find(a, iname), *dm = cr_tar_find(a, dname);
    if (!im && !dm) {                   /* Cube omits all-zero metrics */
        m->loaded = 1;
        return 0;
    }
    if (!im || !dm)
        return cr_err(err, errlen, "metric %s: %s missing", m->uniq_name ? m->uniq_name : "?",
                      im ? dname : iname);
    index_info ix;
    if (parse_index(p, m, buf + im->off, im->size, &ix, err, errlen) < 0)
        return -1;
    size_t cells = (size_t)p->ncnodes * (size_t)p->nlocs;
    if (p->nlocs && cells / (size_t)p->nlocs != (size_t)p->ncnodes)
        cells = SIZE_MAX;
    if (cells > MAX_CELLS)
        return cr_err(err, errlen, "profile too large (%d cnodes x %d locations)", p->ncnodes, p->nlocs);
    double *vals = cr_alloc_values(cells);
    if (!vals)
        return cr_err(err, errlen, "out of memory");
    row_sink s = { p, &ix, seq, find_dtype(m->dtype), vals };
    if (read_data(&s, buf + dm->off, dm->size, m->id, err, errlen) < 0) {
        free(vals);
        return -1;
    }
    if (m->kind == CUBE_KIND_INCLUSIVE)
        m->incl = vals;
    else
        m->excl = vals;
    m->loaded = 1;
    return 0;
}
