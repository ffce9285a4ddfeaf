/* vtl_unpack.c - hprof.timeline.z inflated and written out as text. */
#include "tools/hprof-view/vtl_unpack.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MAGIC "hprof-timeline-z 1\n"
#define MAGIC_2 "hprof-timeline-z 2\n" /* the records rank by rank */
/* As the CUBE reader bounds a member: zlib's largest ratio times the size,
 * at least 256 MB; the text, where ranks share series, some more. */
#define MIN_BOUND ((size_t)256 << 20)
#define TEXT_BOUND ((size_t)1 << 30)
#define MAX_INFLATED ((size_t)1 << 31)
#define MAX_RANKS (1 << 20)
#define MAX_BUCKETS 65536
#define MAX_FIELDS 64
#define MAX_PATHS 1024
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

typedef struct text {
    char *s;
    size_t len, cap;
    int failed;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
    char piece[96];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(piece, sizeof piece, fmt, ap);
    va_end(ap);
    if (t->failed || n < 0 || (size_t)n >= sizeof piece || t->len + (size_t)n + 1 > TEXT_BOUND) {
        t->failed = 1;
        return;
    }
    if (t->len + (size_t)n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1 << 16;
        char *s = realloc(t->s, cap);
        if (!s) {
            t->failed = 1;
            return;
        }
        t->s = s, t->cap = cap;
    }
    memcpy(t->s + t->len, piece, (size_t)n + 1);
    t->len += (size_t)n;
}

/* Where each new series' values start in the inflated bytes, by number. */
typedef struct series_index {
    size_t *at, n, cap;
} series_index;

static void put_values(text *t, reader *r, uint32_t n)
{
    for (uint32_t b = 0; b < n && !r->bad && !t->failed; b++)
        put(t, " %llu", (unsigned long long)u64(r));
}

/* One series: a new one's values, or an earlier one's read again. */
static void put_series(text *t, reader *r, series_index *ix, uint32_t n)
{
    uint64_t s = u64(r);
    if (s < ix->n) {
        reader again = { r->b, r->len, ix->at[s], 0 };
        put_values(t, &again, n);
        return;
    }
    if (s != ix->n || r->bad) {
        r->bad = 1;
        return;
    }
    if (ix->n == ix->cap) {
        size_t cap = ix->cap ? ix->cap * 2 : 256, *a = realloc(ix->at, sizeof *a * cap);
        if (!a) {
            t->failed = 1;
            return;
        }
        ix->at = a, ix->cap = cap;
    }
    ix->at[ix->n++] = r->at;
    put_values(t, r, n);
}

static void put_rows(text *t, reader *r, series_index *ix, uint64_t ranks, uint64_t fields, uint32_t n)
{
    static const char *const names[] = { "mpi_ns", "comp_ns", "visits", "bytes_sent", "bytes_received" };
    for (uint64_t k = 0; k < ranks && !r->bad && !t->failed; k++)
        for (uint64_t f = 0; f < fields; f++) {
            if (f < 5)
                put(t, "rank %llu %s", (unsigned long long)k, names[f]);
            else
                put(t, "rank %llu field%llu", (unsigned long long)k, (unsigned long long)f);
            put_series(t, r, ix, n);
            put(t, "\n");
        }
}

static void put_marks(text *t, reader *r, uint64_t ranks)
{
    for (uint64_t k = 0; k < ranks && !r->bad; k++)
        put(t, "offset %llu %lld\n", (unsigned long long)k, i64(r));
    for (uint64_t k = 0; k < ranks && !r->bad && !t->failed; k++) {
        uint64_t m = u64(r);
        if (m > MAX_PHASES)
            r->bad = 1;
        for (uint64_t i = 0; i < m && !r->bad; i++) {
            unsigned long long ns = (unsigned long long)u64(r);
            put(t, "phase %llu %llu %lld\n", (unsigned long long)k, ns, i64(r));
        }
    }
    for (uint64_t k = 0; k < ranks && !r->bad; k++) {
        uint64_t d = u64(r);
        if (d)
            put(t, "phases_dropped %llu %llu\n", (unsigned long long)k, (unsigned long long)d);
    }
}

/* The chosen paths' count and ids, as both versions of the member hold
 * them; their count (the reader marked bad past MAX_PATHS). */
static uint64_t put_path_ids(text *t, reader *r)
{
    uint64_t k = u64(r);
    if (k > MAX_PATHS) {
        r->bad = 1;
        return 0;
    }
    if (k)
        put(t, "paths %llu\n", (unsigned long long)k);
    for (uint64_t i = 0; i < k && !r->bad; i++)
        put(t, "path %llu %llu\n", (unsigned long long)i, (unsigned long long)u64(r));
    return k;
}

static void put_paths(text *t, reader *r, series_index *ix, uint64_t ranks, uint32_t n)
{
    static const char *const names[2] = { "mpi_ns", "comp_ns" };
    uint64_t k = put_path_ids(t, r);
    if (r->bad)
        return;
    for (uint64_t i = 0; i < k && !r->bad && !t->failed; i++)
        for (uint64_t q = 0; q < ranks && !r->bad && !t->failed; q++)
            for (int f = 0; f < 2; f++) {
                put(t, "path_series %llu %llu %s", (unsigned long long)i, (unsigned long long)q, names[f]);
                put_series(t, r, ix, n);
                put(t, "\n");
            }
    uint64_t spilled = u64(r);
    if (k)
        put(t, "paths_spilled_ns %llu\n", (unsigned long long)spilled);
}

/* Version 2: rank R's record, its lines in the text's words. */
static void put_record(text *t, reader *r, series_index *ix, uint64_t k, uint64_t fields, uint64_t paths,
                       uint32_t n, unsigned long long *spilled)
{
    static const char *const names[] = { "mpi_ns", "comp_ns", "visits", "bytes_sent", "bytes_received" };
    unsigned long long rank = (unsigned long long)k;
    put(t, "offset %llu %lld\n", rank, i64(r));
    uint64_t m = u64(r);
    if (m > MAX_PHASES)
        r->bad = 1;
    for (uint64_t i = 0; i < m && !r->bad; i++) {
        unsigned long long ns = (unsigned long long)u64(r);
        put(t, "phase %llu %llu %lld\n", rank, ns, i64(r));
    }
    uint64_t dropped = u64(r);
    if (dropped)
        put(t, "phases_dropped %llu %llu\n", rank, (unsigned long long)dropped);
    *spilled += u64(r);
    for (uint64_t f = 0; f < fields && !r->bad && !t->failed; f++) {
        if (f < 5)
            put(t, "rank %llu %s", rank, names[f]);
        else
            put(t, "rank %llu field%llu", rank, (unsigned long long)f);
        put_series(t, r, ix, n);
        put(t, "\n");
    }
    for (uint64_t i = 0; i < paths && !r->bad && !t->failed; i++)
        for (int f = 0; f < 2; f++) {
            put(t, "path_series %llu %llu %s", (unsigned long long)i, rank, f ? "comp_ns" : "mpi_ns");
            put_series(t, r, ix, n);
            put(t, "\n");
        }
}

static void put_records(text *t, reader *r, series_index *ix, uint64_t ranks, uint64_t fields, uint32_t n)
{
    unsigned long long spilled = 0;
    uint64_t k = put_path_ids(t, r);
    if (r->bad)
        return;
    for (uint64_t q = 0; q < ranks && !r->bad && !t->failed; q++)
        put_record(t, r, ix, q, fields, k, n, &spilled);
    if (k)
        put(t, "paths_spilled_ns %llu\n", spilled);
}

static char *to_text(reader *r, size_t *len)
{
    text t = { 0 };
    series_index ix = { 0 };
    int v2 = r->len >= sizeof MAGIC_2 - 1 && memcmp(r->b, MAGIC_2, sizeof MAGIC_2 - 1) == 0;
    if (!v2 && (r->len < sizeof MAGIC - 1 || memcmp(r->b, MAGIC, sizeof MAGIC - 1) != 0))
        return NULL;
    r->at = sizeof MAGIC - 1;
    uint64_t width = u64(r), n = u64(r), ranks = u64(r), fields = u64(r);
    if (r->bad || width == 0 || n < 1 || n > MAX_BUCKETS || ranks < 1 || ranks > MAX_RANKS ||
        fields > MAX_FIELDS)
        return NULL;
    put(&t, "hprof-timeline 1\nwidth_ns %llu\nbuckets %llu\nranks %llu\n", (unsigned long long)width,
        (unsigned long long)n, (unsigned long long)ranks);
    put(&t, "fields mpi_ns comp_ns visits bytes_sent bytes_received\n");
    if (v2) {
        put_records(&t, r, &ix, ranks, fields, (uint32_t)n);
    } else {
        put_rows(&t, r, &ix, ranks, fields, (uint32_t)n);
        put_marks(&t, r, ranks);
        put_paths(&t, r, &ix, ranks, (uint32_t)n);
    }
    free(ix.at);
    if (r->bad || t.failed) {
        free(t.s);
        return NULL;
    }
    *len = t.len;
    return t.s;
}

char *vtl_unpack_text(const unsigned char *z, size_t zlen, size_t *len)
{
    size_t blen = 0;
    unsigned char *b = inflate_all(z, zlen, &blen);
    if (!b)
        return NULL;
    reader r = { b, blen, 0, 0 };
    char *s = to_text(&r, len);
    free(b);
    return s;
}
