/* vtl_unpack.c - hprof.timeline.z inflated and read into the store. */
#include "tools/hprof-view/vtl_unpack.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MAGIC "hprof-timeline-z 1\n"
#define MAGIC_2 "hprof-timeline-z 2\n" /* the records rank by rank */
/* As the CUBE reader bounds a member: zlib's largest ratio times the size,
 * at least 256 MB. */
#define MIN_BOUND ((size_t)256 << 20)
#define MAX_INFLATED ((size_t)1 << 31)
#define MAX_RANKS (1 << 20)
#define MAX_BUCKETS 65536
#define MAX_FIELDS 64
#define MAX_PATHS VTL_MAX_PATHS
#define MAX_PHASES 4096

static unsigned char *inflate_all(const unsigned char *z, size_t zlen, size_t *len)
{
    size_t bound = zlen * 1032 > MIN_BOUND ? zlen * 1032 : MIN_BOUND, cap = zlen * 4 + 4096;
    unsigned char *out = NULL;
    if (zlen > MAX_INFLATED)
        return NULL;
    if (bound > MAX_INFLATED)
        bound = MAX_INFLATED; /* zlib counts in 32 bits */
    z_stream s = { 0 };
    int rc = inflateInit(&s) == Z_OK ? Z_OK : Z_MEM_ERROR;
    s.next_in = (unsigned char *)z, s.avail_in = (uInt)zlen;
    for (*len = 0; rc == Z_OK; cap *= 2) {
        unsigned char *o = cap <= bound ? realloc(out, cap) : NULL;
        if (!o) {
            rc = Z_MEM_ERROR;
            break;
        }
        out = o;
        s.next_out = out + *len, s.avail_out = (uInt)(cap - *len);
        rc = inflate(&s, Z_NO_FLUSH);
        *len = cap - s.avail_out;
        if (rc == Z_BUF_ERROR && s.avail_out == 0)
            rc = Z_OK; /* room ran out: more */
    }
    inflateEnd(&s);
    if (rc != Z_STREAM_END) { /* bytes past the stream (the tar's padding) are left */
        free(out);
        return NULL;
    }
    return out;
}

typedef struct reader {
    const unsigned char *b;
    size_t len, at;
    int bad;
} reader;

static uint64_t u64(reader *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->at >= r->len)
            break;
        unsigned char c = r->b[r->at++];
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return v;
    }
    r->bad = 1;
    return 0;
}

static long long i64(reader *r)
{
    uint64_t v = u64(r);
    return (long long)(v >> 1) ^ -(long long)(v & 1);
}

/* One series of the file: a new one's values into a new series of the
 * store, or an earlier one's number; the store's number (0 when bad).
 * The file numbers its series in order from 0, the store from 1. */
static uint32_t read_series(reader *r, timeline *tl)
{
    uint64_t s = u64(r);
    if (!r->bad && s < tl->nseries - 1)
        return (uint32_t)s + 1;
    uint32_t id = 0;
    double *v = !r->bad && s == tl->nseries - 1 ? vtl_store_series(tl, &id) : NULL;
    if (!v) {
        r->bad = 1;
        return 0;
    }
    for (int b = 0; b < tl->nb && !r->bad; b++)
        v[b] = (double)u64(r);
    return id;
}

/* Rank k's F series; those past the fields hprof-view knows are read, not kept. */
static void read_row(reader *r, timeline *tl, uint64_t k, uint64_t fields)
{
    for (uint64_t f = 0; f < fields && !r->bad; f++) {
        uint32_t s = read_series(r, tl);
        if (f < VTL_FIELDS)
            tl->row[k * VTL_FIELDS + f] = s;
    }
}

static void read_path_series(reader *r, timeline *tl, uint64_t i, uint64_t k)
{
    for (int f = 0; f < 2 && !r->bad; f++)
        tl->prow[(i * (uint64_t)tl->nranks + k) * 2 + (uint64_t)f] = read_series(r, tl);
}

/* Rank k's MPI_Pcontrol marks, then its marks not kept. */
static void read_marks(reader *r, timeline *tl, uint64_t k)
{
    uint64_t m = u64(r);
    if (m > MAX_PHASES)
        r->bad = 1;
    for (uint64_t i = 0; i < m && !r->bad; i++) {
        double ns = (double)u64(r);
        vtl_store_phase(tl, (int)k, ns, i64(r));
    }
}

static void read_dropped(reader *r, timeline *tl)
{
    uint64_t d = u64(r);
    if (d)
        tl->phases_dropped += (double)d, tl->dropped_ranks++;
}

/* Each series a rank names takes a byte at least: a count of them the
 * bytes left cannot hold is a damaged member, refused before the room. */
static int fits(const reader *r, uint64_t ranks, uint64_t per_rank)
{
    return ranks * per_rank <= r->len - r->at;
}

/* The chosen paths' count and file cnode ids, as both versions hold them. */
static void read_path_ids(reader *r, timeline *tl)
{
    uint64_t k = u64(r);
    if (r->bad || k > MAX_PATHS || !fits(r, (uint64_t)tl->nranks, 2 * k) || vtl_store_paths(tl, (int)k) < 0) {
        r->bad = 1;
        return;
    }
    for (uint64_t i = 0; i < k && !r->bad; i++) {
        uint64_t id = u64(r);
        tl->path_cnode[i] = id <= INT_MAX ? (int)id : -1;
    }
}

/* Version 1: all ranks' rows, offsets, marks, drops, then the paths. */
static void read_v1(reader *r, timeline *tl, uint64_t fields)
{
    uint64_t ranks = (uint64_t)tl->nranks;
    for (uint64_t k = 0; k < ranks && !r->bad; k++)
        read_row(r, tl, k, fields);
    for (uint64_t k = 0; k < ranks && !r->bad; k++)
        i64(r); /* offsets: the buckets are moved already */
    for (uint64_t k = 0; k < ranks && !r->bad; k++)
        read_marks(r, tl, k);
    for (uint64_t k = 0; k < ranks && !r->bad; k++)
        read_dropped(r, tl);
    read_path_ids(r, tl);
    for (uint64_t i = 0; i < (uint64_t)tl->npaths && !r->bad; i++)
        for (uint64_t k = 0; k < ranks && !r->bad; k++)
            read_path_series(r, tl, i, k);
    tl->spilled = (double)u64(r);
}

/* Version 2: the paths' ids, then a record a rank. */
static void read_v2(reader *r, timeline *tl, uint64_t fields)
{
    read_path_ids(r, tl);
    for (uint64_t k = 0; k < (uint64_t)tl->nranks && !r->bad; k++) {
        i64(r); /* offset */
        read_marks(r, tl, k);
        read_dropped(r, tl);
        tl->spilled += (double)u64(r);
        read_row(r, tl, k, fields);
        for (uint64_t i = 0; i < (uint64_t)tl->npaths && !r->bad; i++)
            read_path_series(r, tl, i, k);
    }
}

static int read_member(reader *r, timeline *tl)
{
    int v2 = r->len >= sizeof MAGIC_2 - 1 && memcmp(r->b, MAGIC_2, sizeof MAGIC_2 - 1) == 0;
    if (!v2 && (r->len < sizeof MAGIC - 1 || memcmp(r->b, MAGIC, sizeof MAGIC - 1) != 0))
        return -1;
    r->at = sizeof MAGIC - 1;
    uint64_t width = u64(r), n = u64(r), ranks = u64(r), fields = u64(r);
    if (r->bad || width == 0 || n < 1 || n > MAX_BUCKETS || ranks < 1 || ranks > MAX_RANKS ||
        fields > MAX_FIELDS || !fits(r, ranks, fields ? fields : 1) ||
        vtl_store_init(tl, (double)width * 1e-9, (int)n, (int)ranks) < 0)
        return -1;
    if (v2)
        read_v2(r, tl, fields);
    else
        read_v1(r, tl, fields);
    if (!tl->npaths)
        tl->spilled = 0; /* said only with paths */
    return r->bad ? -1 : 0;
}

int vtl_unpack(const unsigned char *z, size_t zlen, timeline *tl)
{
    size_t blen = 0;
    unsigned char *b = inflate_all(z, zlen, &blen);
    if (!b)
        return -1;
    reader r = { b, blen, 0, 0 };
    int rc = read_member(&r, tl);
    free(b);
    return rc;
}
