/*
 * timeline_pack.h - the byte form of the timeline member (timeline_file.h):
 * unsigned LEB128 numbers (signed ones zigzag-mapped first), series of
 * bucket values stored once however many ranks share them, and the whole
 * deflated by zlib at the end. Only rank 0 packs; nothing here is on a hot
 * path.
 */
#ifndef HPROF_TIMELINE_PACK_H
#define HPROF_TIMELINE_PACK_H

#include <stddef.h>
#include <stdint.h>

typedef struct tl_series_set tl_series_set;

typedef struct tl_pack {
    unsigned char *b;
    size_t len, cap;
    int failed; /* out of memory: later puts do nothing */
    tl_series_set *seen;
    uint32_t n; /* buckets a series */
} tl_pack;

/* An empty pack for series of n buckets that can tell apart up to
 * max_series different ones (a series past that is stored again). */
int tl_pack_init(tl_pack *p, uint32_t n, size_t max_series);
void tl_pack_free(tl_pack *p);

void tl_pack_bytes(tl_pack *p, const void *bytes, size_t len);
void tl_pack_u64(tl_pack *p, uint64_t v);
void tl_pack_i64(tl_pack *p, long long v);

/* A series of n values at v[b * stride] (v NULL: zeros): the number of an
 * equal series packed before, or the next number followed by its values.
 * v is read again until tl_pack_deflate: it must stay valid. */
void tl_pack_series(tl_pack *p, const uint64_t *v, size_t stride);

/* The pack deflated (malloc'd, *len set), NULL when out of memory or the
 * pack failed. The pack is freed either way. */
unsigned char *tl_pack_deflate(tl_pack *p, size_t *len);

#endif
