/*
 * timeline_pack.h - the byte form of the timeline member (timeline_file.h):
 * unsigned LEB128 numbers (signed ones zigzag-mapped first), series of
 * bucket values stored once however many ranks share them, and the whole
 * deflated by zlib as it grows (tl_pack_init), or handed on raw in pieces
 * to a sink (tl_pack_init_sink: a rank's part on its way up the tree,
 * timeline_tree.h). Nothing here is on a hot path.
 *
 * A sink's pack writes a new series as its number, its two hashes (16
 * bytes, least significant first), the length of its values' bytes and
 * those bytes; the pack that takes it (tl_pack_series_bytes) copies them
 * without reading the values again. A deflated pack (the member) writes
 * the number and the values' bytes only.
 *
 * Series are told apart by two 64-bit hashes of their values, not kept:
 * what a pack holds grows with the distinct series it remembers (at most
 * max_series, 20 bytes each), not with the values.
 */
#ifndef HPROF_TIMELINE_PACK_H
#define HPROF_TIMELINE_PACK_H

#include <stddef.h>
#include <stdint.h>

typedef struct tl_series_set tl_series_set;
typedef struct z_stream_s *tl_deflater;

/* Takes len bytes of the pack (len a multiple of the piece size, or the
 * last, shorter piece at tl_pack_end). */
typedef void (*tl_sink)(void *ctx, const unsigned char *bytes, size_t len);

typedef struct tl_pack {
    unsigned char *b; /* bytes not yet deflated or handed on */
    size_t len, cap;
    size_t total; /* bytes packed in all */
    int failed;   /* out of memory: later puts do nothing */
    tl_series_set *seen;
    uint32_t n; /* buckets a series */
    tl_deflater z;
    unsigned char *out; /* deflated so far */
    size_t outlen, outcap;
    tl_sink sink;
    void *sink_ctx;
    size_t piece;
    unsigned char *series; /* one series' values encoded */
} tl_pack;

/* The most bytes a series of n values takes encoded. */
#define TL_SERIES_MAX_BYTES(n) ((size_t)(n)*10)

/* An empty pack for series of n buckets that can tell apart up to
 * max_series different ones (a series past that is stored again),
 * deflated as it grows. */
int tl_pack_init(tl_pack *p, uint32_t n, size_t max_series);
/* The same, its bytes handed raw to sink in pieces of `piece` bytes; the
 * last one, at tl_pack_end, shorter (maybe empty). */
int tl_pack_init_sink(tl_pack *p, uint32_t n, size_t max_series, tl_sink sink, void *ctx, size_t piece);
void tl_pack_free(tl_pack *p);

void tl_pack_bytes(tl_pack *p, const void *bytes, size_t len);
void tl_pack_u64(tl_pack *p, uint64_t v);
void tl_pack_i64(tl_pack *p, long long v);

/* A series of n values at v[b * stride] (v NULL: zeros): the number of an
 * equal series packed before, or the next number followed by its values.
 * Returns the number. */
uint64_t tl_pack_series(tl_pack *p, const uint64_t *v, size_t stride);
/* The same for a series another pack handed on: its hashes and its
 * values' bytes (len of them) as a sink's pack wrote them. Marks the pack
 * failed where they cannot be a series of n values. */
uint64_t tl_pack_series_bytes(tl_pack *p, uint64_t h1, uint64_t h2, const unsigned char *bytes, size_t len);

/* The pack deflated (malloc'd, *len set), NULL when out of memory or the
 * pack failed. The pack is freed either way. */
unsigned char *tl_pack_deflate(tl_pack *p, size_t *len);
/* A sink's pack: the last piece handed on, the pack freed. 0, or -1 when
 * it failed (the last piece is handed on all the same). */
int tl_pack_end(tl_pack *p);

#endif
