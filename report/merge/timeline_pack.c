/* timeline_pack.c - numbers, shared series and zlib for the timeline member. */
#include "report/merge/timeline_pack.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define DEFLATE_AT ((size_t)1 << 16) /* bytes gathered before zlib takes them */
/* zlib's fast matcher: rank 0 deflates every distinct series alone, and
 * level 3 takes under half of level 6's instructions for a member about a
 * tenth larger. */
#define DEFLATE_LEVEL 3

/* Series seen so far, by their hashes: open addressing, grown as it
 * fills up to twice max entries. */
struct tl_series_set {
    size_t cap, used, kept, max; /* used: numbers given; kept: those remembered */
    struct seen_series {
        uint64_t h1, h2; /* h1 0: an empty slot */
        uint64_t number;
    } * slot;
};

static int set_init(tl_pack *p, size_t max_series)
{
    tl_series_set *s = calloc(1, sizeof *s);
    p->seen = s;
    if (!s)
        return -1;
    s->cap = 64, s->max = max_series;
    s->slot = calloc(s->cap, sizeof *s->slot);
    return s->slot ? 0 : -1;
}

static int pack_init(tl_pack *p, uint32_t n, size_t max_series)
{
    memset(p, 0, sizeof *p);
    p->n = n;
    p->series = malloc(TL_SERIES_MAX_BYTES(n));
    if (!p->series || set_init(p, max_series) != 0) {
        tl_pack_free(p);
        p->failed = 1;
        return -1;
    }
    return 0;
}

int tl_pack_init(tl_pack *p, uint32_t n, size_t max_series)
{
    if (pack_init(p, n, max_series) != 0)
        return -1;
    p->z = calloc(1, sizeof *p->z);
    if (!p->z || deflateInit(p->z, DEFLATE_LEVEL) != Z_OK) {
        free(p->z);
        p->z = NULL;
        tl_pack_free(p);
        p->failed = 1;
        return -1;
    }
    return 0;
}

int tl_pack_init_sink(tl_pack *p, uint32_t n, size_t max_series, tl_sink sink, void *ctx, size_t piece)
{
    int rc = pack_init(p, n, max_series);
    p->sink = sink, p->sink_ctx = ctx, p->piece = piece;
    return rc;
}

void tl_pack_free(tl_pack *p)
{
    if (p->seen)
        free(p->seen->slot);
    free(p->seen);
    if (p->z)
        deflateEnd(p->z);
    free(p->z);
    free(p->b);
    free(p->out);
    free(p->series);
    p->seen = NULL, p->b = NULL, p->z = NULL, p->out = NULL, p->series = NULL;
    p->len = p->cap = p->outlen = p->outcap = 0;
}

/* zlib takes the bytes gathered (flush: Z_FINISH at the end). */
static void deflate_some(tl_pack *p, int flush)
{
    z_stream *z = p->z;
    z->next_in = p->b, z->avail_in = (uInt)p->len;
    for (int rc = Z_OK; !p->failed;) {
        if (p->outcap - p->outlen < 4096) {
            size_t cap = p->outcap ? p->outcap * 2 : 1 << 16;
            unsigned char *o = realloc(p->out, cap);
            if (!o) {
                p->failed = 1;
                break;
            }
            p->out = o, p->outcap = cap;
        }
        z->next_out = p->out + p->outlen, z->avail_out = (uInt)(p->outcap - p->outlen);
        rc = deflate(z, flush);
        p->outlen = p->outcap - z->avail_out;
        if (rc == Z_STREAM_END || (flush == Z_NO_FLUSH && z->avail_in == 0 && z->avail_out > 0))
            break;
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            p->failed = 1;
    }
    p->len = 0;
}

/* Whole pieces to the sink, or the bytes to zlib, once enough are there. */
static void hand_on(tl_pack *p)
{
    if (p->sink) {
        size_t at = 0;
        for (; p->len - at >= p->piece; at += p->piece)
            p->sink(p->sink_ctx, p->b + at, p->piece);
        memmove(p->b, p->b + at, p->len - at);
        p->len -= at;
    } else if (p->z && p->len >= DEFLATE_AT) {
        deflate_some(p, Z_NO_FLUSH);
    }
}

void tl_pack_bytes(tl_pack *p, const void *bytes, size_t len)
{
    if (p->failed)
        return;
    if (p->len + len > p->cap) {
        size_t cap = p->cap ? p->cap : 1 << 16;
        while (cap < p->len + len)
            cap *= 2;
        unsigned char *b = realloc(p->b, cap);
        if (!b) {
            p->failed = 1;
            return;
        }
        p->b = b, p->cap = cap;
    }
    memcpy(p->b + p->len, bytes, len);
    p->len += len, p->total += len;
    if (p->len >= (p->sink ? p->piece : DEFLATE_AT))
        hand_on(p);
}

/* LEB128: seven bits a byte, the high bit set on all but the last. */
static size_t put_varint(unsigned char *x, uint64_t v)
{
    size_t k = 0;
    do {
        x[k] = (unsigned char)(v & 0x7f);
        v >>= 7;
        x[k++] |= v ? 0x80 : 0;
    } while (v);
    return k;
}

void tl_pack_u64(tl_pack *p, uint64_t v)
{
    unsigned char x[10];
    tl_pack_bytes(p, x, put_varint(x, v));
}

void tl_pack_i64(tl_pack *p, long long v)
{
    tl_pack_u64(p, v < 0 ? ~((uint64_t)v << 1) : (uint64_t)v << 1);
}

static uint64_t at(const uint64_t *v, size_t stride, uint32_t b)
{
    return v ? v[(size_t)b * stride] : 0;
}

/* FNV-1a over the values (h1, never 0: 0 marks an empty slot) and a
 * multiply-xorshift mix of them (h2): two series alike in both are taken
 * as equal. */
static void series_hash(const uint64_t *v, size_t stride, uint32_t n, uint64_t *h1, uint64_t *h2)
{
    uint64_t a = 14695981039346656037ull, b = 0x9e3779b97f4a7c15ull;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t x = at(v, stride, i);
        a = (a ^ x) * 1099511628211ull;
        b = (b ^ (x + i)) * 0xbf58476d1ce4e5b9ull;
        b ^= b >> 31;
    }
    *h1 = a ? a : 1, *h2 = b;
}

/* Twice the room when half full, while under twice max entries. */
static void grow(tl_series_set *s)
{
    if (s->kept * 2 < s->cap || s->cap >= 2 * s->max)
        return;
    struct seen_series *slot = calloc(s->cap * 2, sizeof *slot);
    if (!slot)
        return;
    for (size_t i = 0; i < s->cap; i++)
        if (s->slot[i].h1) {
            size_t j = (size_t)s->slot[i].h1 & (s->cap * 2 - 1);
            while (slot[j].h1)
                j = (j + 1) & (s->cap * 2 - 1);
            slot[j] = s->slot[i];
        }
    free(s->slot);
    s->slot = slot, s->cap *= 2;
}

/* The slot holding the series with these hashes, or the empty one where
 * it would go (the table is at most half full). */
static size_t find_slot(const tl_series_set *s, uint64_t h1, uint64_t h2)
{
    size_t i = (size_t)h1 & (s->cap - 1);
    while (s->slot[i].h1 && !(s->slot[i].h1 == h1 && s->slot[i].h2 == h2))
        i = (i + 1) & (s->cap - 1);
    return i;
}

/* The number of a series seen before, named instead of stored; 0 when it
 * was not seen. */
static int put_seen(tl_pack *p, size_t i, uint64_t *number)
{
    if (!p->seen->slot[i].h1)
        return 0;
    *number = p->seen->slot[i].number;
    tl_pack_u64(p, *number);
    return 1;
}

/* A new series (its empty slot i): the next number, then its bytes (its
 * values' numbers); a sink's pack puts its hashes and length between
 * (timeline_pack.h). It is remembered while there is room. */
static uint64_t put_new(tl_pack *p, size_t i, uint64_t h1, uint64_t h2, const unsigned char *bytes,
                        size_t len)
{
    tl_series_set *s = p->seen;
    uint64_t number = s->used++;
    tl_pack_u64(p, number);
    if (p->sink) {
        unsigned char h[16];
        for (int k = 0; k < 8; k++)
            h[k] = (unsigned char)(h1 >> (8 * k)), h[8 + k] = (unsigned char)(h2 >> (8 * k));
        tl_pack_bytes(p, h, sizeof h);
        tl_pack_u64(p, len);
    }
    tl_pack_bytes(p, bytes, len);
    if (s->kept < s->max && s->kept * 2 + 2 <= s->cap) {
        s->slot[i] = (struct seen_series){ h1, h2, number };
        s->kept++;
        grow(s);
    }
    return number;
}

uint64_t tl_pack_series(tl_pack *p, const uint64_t *v, size_t stride)
{
    uint64_t h1, h2, number;
    size_t len = 0;
    if (p->failed)
        return 0;
    series_hash(v, stride, p->n, &h1, &h2);
    size_t i = find_slot(p->seen, h1, h2);
    if (put_seen(p, i, &number))
        return number;
    for (uint32_t b = 0; b < p->n; b++)
        len += put_varint(p->series + len, at(v, stride, b));
    return put_new(p, i, h1, h2, p->series, len);
}

uint64_t tl_pack_series_bytes(tl_pack *p, uint64_t h1, uint64_t h2, const unsigned char *bytes, size_t len)
{
    uint64_t number;
    if (p->failed)
        return 0;
    if (h1 == 0 || len < p->n || len > TL_SERIES_MAX_BYTES(p->n)) {
        p->failed = 1;
        return 0;
    }
    size_t i = find_slot(p->seen, h1, h2);
    return put_seen(p, i, &number) ? number : put_new(p, i, h1, h2, bytes, len);
}

unsigned char *tl_pack_deflate(tl_pack *p, size_t *len)
{
    unsigned char *z = NULL;
    *len = 0;
    if (!p->failed && p->z) {
        deflate_some(p, Z_FINISH);
        if (!p->failed) {
            z = p->out, *len = p->outlen;
            p->out = NULL;
        }
    }
    tl_pack_free(p);
    return z;
}

int tl_pack_end(tl_pack *p)
{
    int rc = p->failed ? -1 : 0;
    if (p->sink) {
        if (!p->failed)
            hand_on(p);
        p->sink(p->sink_ctx, p->b, p->failed ? 0 : p->len);
    }
    tl_pack_free(p);
    return rc;
}
