/* timeline_pack.c - numbers, shared series and zlib for the timeline member. */
#include "report/merge/timeline_pack.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Series seen so far, by content: open addressing over copies of them. */
struct tl_series_set {
    size_t cap, used, max;
    uint64_t *hash;   /* [cap], 0: empty slot */
    uint32_t *number; /* [cap] */
    struct kept {
        const uint64_t *v; /* the caller's, valid until deflate; NULL: zeros */
        size_t stride;
    } * kept; /* [number] */
};

int tl_pack_init(tl_pack *p, uint32_t n, size_t max_series)
{
    memset(p, 0, sizeof *p);
    p->n = n;
    tl_series_set *s = calloc(1, sizeof *s);
    size_t cap = 64;
    while (cap < 2 * max_series)
        cap *= 2;
    if (s) {
        s->cap = cap, s->max = max_series;
        s->hash = calloc(cap, sizeof *s->hash);
        s->number = calloc(cap, sizeof *s->number);
        s->kept = malloc(sizeof *s->kept * (max_series ? max_series : 1));
    }
    p->seen = s;
    if (!s || !s->hash || !s->number || !s->kept) {
        tl_pack_free(p);
        p->failed = 1;
        return -1;
    }
    return 0;
}

void tl_pack_free(tl_pack *p)
{
    if (p->seen) {
        free(p->seen->hash);
        free(p->seen->number);
        free(p->seen->kept);
        free(p->seen);
    }
    free(p->b);
    p->seen = NULL, p->b = NULL;
    p->len = p->cap = 0;
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
    p->len += len;
}

void tl_pack_u64(tl_pack *p, uint64_t v)
{
    unsigned char x[10];
    size_t k = 0;
    do {
        x[k] = (unsigned char)(v & 0x7f);
        v >>= 7;
        x[k++] |= v ? 0x80 : 0;
    } while (v);
    tl_pack_bytes(p, x, k);
}

void tl_pack_i64(tl_pack *p, long long v)
{
    tl_pack_u64(p, v < 0 ? ~((uint64_t)v << 1) : (uint64_t)v << 1);
}

static uint64_t at(const uint64_t *v, size_t stride, uint32_t b)
{
    return v ? v[(size_t)b * stride] : 0;
}

/* FNV-1a over the values, never 0 (0 marks an empty slot). */
static uint64_t series_hash(const uint64_t *v, size_t stride, uint32_t n)
{
    uint64_t h = 14695981039346656037ull;
    for (uint32_t b = 0; b < n; b++)
        h = (h ^ at(v, stride, b)) * 1099511628211ull;
    return h ? h : 1;
}

static int same(const struct kept *k, const uint64_t *v, size_t stride, uint32_t n)
{
    for (uint32_t b = 0; b < n; b++)
        if (at(k->v, k->stride, b) != at(v, stride, b))
            return 0;
    return 1;
}

void tl_pack_series(tl_pack *p, const uint64_t *v, size_t stride)
{
    tl_series_set *s = p->seen;
    if (p->failed)
        return;
    uint64_t h = series_hash(v, stride, p->n);
    size_t i = (size_t)h & (s->cap - 1);
    for (; s->hash[i]; i = (i + 1) & (s->cap - 1))
        if (s->hash[i] == h && same(&s->kept[s->number[i]], v, stride, p->n)) {
            tl_pack_u64(p, s->number[i]);
            return;
        }
    /* a new series: it takes the next number, kept while there is room */
    tl_pack_u64(p, s->used);
    for (uint32_t b = 0; b < p->n; b++)
        tl_pack_u64(p, at(v, stride, b));
    if (s->used < s->max) {
        s->kept[s->used] = (struct kept){ v, stride };
        s->hash[i] = h, s->number[i] = (uint32_t)s->used;
    }
    s->used++;
}

unsigned char *tl_pack_deflate(tl_pack *p, size_t *len)
{
    uLongf out = p->failed ? 0 : compressBound((uLong)p->len);
    unsigned char *z = p->failed ? NULL : malloc(out ? out : 1);
    if (z && compress2(z, &out, p->b, (uLong)p->len, Z_DEFAULT_COMPRESSION) != Z_OK) {
        free(z);
        z = NULL;
    }
    tl_pack_free(p);
    *len = z ? (size_t)out : 0;
    return z;
}
