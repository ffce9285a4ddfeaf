#include "report/cube/writer/cw_rows.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int row_failed(cw_rows *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int row_failed(cw_rows *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->msg, r->msglen, fmt, ap);
    va_end(ap);
    return -1;
}

int cw_rows_is_stored(const unsigned char *present, int npresent, int row)
{
    if (!present)
        return 1;
    if (npresent <= 0)
        return row == 0; /* row 0 stands for the metric */
    return (present[row / 8] >> (row % 8)) & 1;
}

static int is_present(const cw_rows *r, int row)
{
    return cw_rows_is_stored(r->present, r->none_present ? 0 : 1, row);
}

static int write_index(cw_rows *r, int file_id, long long mtime)
{
    char name[32];
    unsigned char head[22];
    uint32_t one = 1, n = (uint32_t)r->nstored;
    uint16_t version = 0;
    memcpy(head, "CUBEX.INDEX", 11);
    memcpy(head + 11, &one, 4);
    memcpy(head + 15, &version, 2);
    head[17] = 1; /* sparse format: the rows listed */
    memcpy(head + 18, &n, 4);
    cw_member m;
    snprintf(name, sizeof name, "%d.index", file_id);
    cw_tar_begin(r->out, &m, name, mtime);
    cw_out_write(r->out, head, sizeof head);
    uint32_t ids[1024];
    int k = 0;
    for (int row = 0; row < r->nrows; row++) {
        if (!is_present(r, row))
            continue;
        ids[k++] = (uint32_t)row;
        if (k == 1024) {
            cw_out_write(r->out, ids, sizeof ids);
            k = 0;
        }
    }
    cw_out_write(r->out, ids, 4 * (size_t)k);
    return cw_tar_end(r->out, &m, 0);
}

/* A row is short: zlib's window and hash sized to it keep deflateReset,
 * which clears the hash, cheap; the stream is the same zlib format
 * whatever the window (inflate takes any). */
static int start_deflate(cw_rows *r)
{
    int bits = 9;
    while (bits < 15 && ((size_t)1 << bits) < r->rowbytes)
        bits++;
    int mem = bits - 7 < 1 ? 1 : bits - 7 > 8 ? 8 : bits - 7;
    if (deflateInit2(&r->z, Z_BEST_SPEED, Z_DEFLATED, bits, mem, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    r->z_ready = 1;
    return 0;
}

static int start_data(cw_rows *r, int file_id, long long mtime)
{
    char name[32];
    snprintf(name, sizeof name, "%d.data", file_id);
    cw_tar_begin(r->out, &r->data, name, mtime);
    if (!r->zrows)
        return cw_out_write(r->out, "CUBEX.DATA", 10);
    uint64_t n = (uint64_t)r->nstored;
    if (start_deflate(r) < 0)
        return row_failed(r, "out of memory");
    /* The bound of this stream's settings: a small window and memory level
     * cut incompressible rows (times of many locations) into more stored
     * blocks than compressBound (compress2's defaults) leaves room for. */
    r->zcap = deflateBound(&r->z, (uLong)r->rowbytes);
    r->table = malloc((size_t)n * 24 + 1);
    r->zbuf = malloc(r->zcap);
    r->prev = malloc(r->rowbytes);
    r->prev_z = malloc(r->zcap);
    if (!r->table || !r->zbuf || !r->prev || !r->prev_z)
        return row_failed(r, "out of memory");
    cw_out_write(r->out, "ZCUBEX.DATA", 11);
    cw_out_write(r->out, &n, 8);
    r->table_off = r->out->pos;
    cw_out_zeros(r->out, (size_t)n * 24); /* the table, patched at the end */
    r->seg_start = r->out->pos;
    return 0;
}

int cw_rows_begin(cw_rows *r, cw_out *out, char *msg, size_t msglen, int file_id, long long mtime, int nrows,
                  int nlocs, int compress, const unsigned char *present, int npresent)
{
    memset(r, 0, sizeof *r);
    r->out = out;
    r->msg = msg;
    r->msglen = msglen;
    r->nrows = nrows;
    r->rowbytes = (size_t)nlocs * 8;
    r->present = present;
    r->none_present = present && npresent <= 0;
    r->nstored = present ? (npresent > 0 ? npresent : 1) : nrows;
    r->zrows = compress && r->rowbytes >= CW_ZROW_MIN_BYTES;
    if (write_index(r, file_id, mtime) < 0 || start_data(r, file_id, mtime) < 0)
        return -1;
    return out->failed ? -1 : 0;
}

/* row as one zlib stream into zbuf; its length, or 0 on failure. */
static size_t deflate_row(cw_rows *r, const unsigned char *row)
{
    if (deflateReset(&r->z) != Z_OK)
        return 0;
    r->z.next_in = (Bytef *)row;
    r->z.avail_in = (uInt)r->rowbytes;
    r->z.next_out = r->zbuf;
    r->z.avail_out = (uInt)r->zcap;
    return deflate(&r->z, Z_FINISH) == Z_STREAM_END ? r->zcap - r->z.avail_out : 0;
}

/* The stream of a row: rows of zeros (most rows of a large profile's
 * metrics, where not left out) share one, made once; a row like the one
 * before (visits of 1 on every location) reuses its stream. */
static const unsigned char *row_stream(cw_rows *r, const unsigned char *row, int nonzero, size_t *zlen)
{
    if (!nonzero && r->zero_z) {
        *zlen = r->zero_zlen;
        return r->zero_z;
    }
    if (nonzero && r->prev_zlen && memcmp(row, r->prev, r->rowbytes) == 0) {
        *zlen = r->prev_zlen;
        return r->prev_z;
    }
    size_t n = deflate_row(r, row);
    if (!n)
        return NULL;
    if (!nonzero) {
        if (!(r->zero_z = malloc(n)))
            return NULL;
        memcpy(r->zero_z, r->zbuf, n);
        *zlen = r->zero_zlen = n;
        return r->zero_z;
    }
    memcpy(r->prev, row, r->rowbytes);
    memcpy(r->prev_z, r->zbuf, n);
    *zlen = r->prev_zlen = n;
    return r->prev_z;
}

static int store_row(cw_rows *r, const unsigned char *row, int nonzero)
{
    if (!r->zrows)
        return cw_out_write(r->out, row, r->rowbytes);
    size_t zlen = 0;
    const unsigned char *z = row_stream(r, row, nonzero, &zlen);
    if (!z)
        return row_failed(r, "compression failed");
    uint64_t *e = &r->table[3 * (size_t)r->stored];
    e[0] = (uint64_t)r->stored * r->rowbytes;
    e[1] = (uint64_t)(r->out->pos - r->seg_start);
    e[2] = (uint64_t)zlen;
    return cw_out_write(r->out, z, zlen);
}

int cw_rows_put(cw_rows *r, const unsigned char *row, int nonzero)
{
    if (r->next >= r->nrows)
        return row_failed(r, "cube writer: more rows than cnodes");
    int row_no = r->next++;
    if (!is_present(r, row_no)) {
        if (nonzero)
            return row_failed(r, "cube writer: row %d holds values but was not declared present", row_no);
        return 0;
    }
    if (r->stored == r->nstored)
        return row_failed(r, "cube writer: more rows present than declared");
    int rc = store_row(r, row, nonzero);
    r->stored++;
    return rc < 0 || r->out->failed ? -1 : 0;
}

/* A zlib stream from raw deflate pieces: the header (deflate, 32 KiB
 * window, no dictionary, level "fastest"), the pieces, a final empty
 * block with fixed codes (bits 1, 01, then the end-of-block code 0000000),
 * the adler32 of the row, most significant byte first. */
static int store_pieces(cw_rows *r, const cube_row_piece *p, int n)
{
    static const unsigned char head[2] = { 0x78, 0x01 }, last[2] = { 0x03, 0x00 };
    size_t zlen = 0, raw = 0;
    uint32_t adler = 1; /* of no bytes */
    for (int k = 0; k < n; k++) {
        zlen += p[k].len;
        raw += p[k].rawlen;
        adler = k == 0 ? p[k].adler : (uint32_t)adler32_combine(adler, p[k].adler, (z_off_t)p[k].rawlen);
    }
    if (raw != r->rowbytes)
        return row_failed(r, "cube writer: pieces of %zu bytes for a row of %zu", raw, r->rowbytes);
    uint64_t *e = &r->table[3 * (size_t)r->stored];
    e[0] = (uint64_t)r->stored * r->rowbytes;
    e[1] = (uint64_t)(r->out->pos - r->seg_start);
    e[2] = (uint64_t)(zlen + sizeof head + sizeof last + 4);
    unsigned char tail[4] = { (unsigned char)(adler >> 24), (unsigned char)(adler >> 16),
                              (unsigned char)(adler >> 8), (unsigned char)adler };
    cw_out_write(r->out, head, sizeof head);
    for (int k = 0; k < n; k++)
        cw_out_write(r->out, p[k].data, p[k].len);
    cw_out_write(r->out, last, sizeof last);
    return cw_out_write(r->out, tail, sizeof tail);
}

static int store_raw_pieces(cw_rows *r, const cube_row_piece *p, int n)
{
    size_t raw = 0;
    for (int k = 0; k < n; k++)
        raw += p[k].len;
    if (raw != r->rowbytes)
        return row_failed(r, "cube writer: pieces of %zu bytes for a row of %zu", raw, r->rowbytes);
    for (int k = 0; k < n; k++)
        cw_out_write(r->out, p[k].data, p[k].len);
    return 0;
}

/* The stored rows before `row` that were not given: zeros. */
static int zeros_until(cw_rows *r, int row, const unsigned char *zeros)
{
    while (r->next < row) {
        int rc = cw_rows_put(r, zeros, 0);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int cw_rows_put_pieces(cw_rows *r, int row, const cube_row_piece *p, int n, int nonzero)
{
    if (row < r->next || row >= r->nrows)
        return row_failed(r, "cube writer: row %d given after row %d", row, r->next);
    if ((r->next < row || !nonzero) && !r->zeros && !(r->zeros = calloc(1, r->rowbytes + 1)))
        return row_failed(r, "out of memory");
    if (zeros_until(r, row, r->zeros) < 0)
        return -1;
    if (!nonzero)
        return cw_rows_put(r, r->zeros, 0); /* the one stream of zeros */
    int row_no = r->next++;
    if (!is_present(r, row_no))
        return row_failed(r, "cube writer: row %d holds values but was not declared present", row_no);
    if (r->stored == r->nstored)
        return row_failed(r, "cube writer: more rows present than declared");
    int rc = r->zrows ? store_pieces(r, p, n) : store_raw_pieces(r, p, n);
    r->stored++;
    return rc < 0 || r->out->failed ? -1 : 0;
}

int cw_rows_end(cw_rows *r)
{
    int rc = 0;
    if (r->next != r->nrows || r->stored != r->nstored)
        rc = row_failed(r, "cube writer: metric ended after %d of %d rows (%d of %d stored)", r->next,
                        r->nrows, r->stored, r->nstored);
    if (rc == 0 && r->zrows)
        cw_out_patch(r->out, r->table_off, r->table, (size_t)r->nstored * 24);
    if (rc == 0)
        cw_tar_end(r->out, &r->data, 0);
    cw_rows_free(r);
    return rc < 0 || r->out->failed ? -1 : 0;
}

void cw_rows_free(cw_rows *r)
{
    free(r->table), free(r->zbuf), free(r->prev), free(r->prev_z), free(r->zero_z), free(r->zeros);
    r->table = NULL, r->zbuf = r->prev = r->prev_z = r->zero_z = r->zeros = NULL;
    if (r->z_ready)
        deflateEnd(&r->z);
    r->z_ready = 0;
}
