/*
 * check.c - the packed time line member's two ends on their own: what
 * report/merge/timeline_pack.c packs, tools/hprof-view/vtl_unpack.c reads
 * back into its store (vtl_store.h), number for number, with known answers:
 *   shared   equal series of several ranks stored once: the packed bytes
 *            hold one copy, and the store holds each distinct series once;
 *   capped   more distinct series than the pack remembers: still read
 *            back exactly (a repeat of one not remembered is stored again);
 *   extremes the largest counts (as the nearest doubles, the views'
 *            numbers), marks of levels past an int not kept;
 *   sink     series handed on raw in pieces (a rank's stream up the
 *            tree: whole pieces, the last one shorter), copied by an inner
 *            rank after its own and by rank 0 with their hashes, not
 *            read again: the bytes zlib holds are those of the same
 *            series packed in one pack.
 * Prints one "name ok ..." or "name bad ..." line each.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "report/merge/timeline_pack.h"
#include "tools/hprof-view/vtl_store.h"
#include "tools/hprof-view/vtl_unpack.h"

#define MAGIC "hprof-timeline-z 1\n"
#define NB 6
#define RANKS 4
#define FIELDS 5

/* rank r's field f: ranks 0 and 2 alike, 1 and 3 alike, field 4 zeros */
static uint64_t value(int r, int f, int b, int extremes)
{
    if (extremes && b == 0)
        return UINT64_MAX - (uint64_t)f;
    return f == 4 ? 0 : (uint64_t)((r % 2) * 1000 + f * 100 + b) * 8388608u;
}

static void row(uint64_t *v, int r, int f, int extremes)
{
    for (int b = 0; b < NB; b++)
        v[b] = value(r, f, b, extremes);
}

/* The member: ranks' rows, offsets, one mark each, no drops, one path. */
static void pack_into(tl_pack *pp, int extremes)
{
    static uint64_t rows[RANKS][FIELDS][NB], paths[RANKS][2][NB];
    tl_pack p = *pp;
    tl_pack_bytes(&p, MAGIC, sizeof MAGIC - 1);
    tl_pack_u64(&p, 8388608);
    tl_pack_u64(&p, NB);
    tl_pack_u64(&p, RANKS);
    tl_pack_u64(&p, FIELDS);
    for (int r = 0; r < RANKS; r++)
        for (int f = 0; f < FIELDS; f++) {
            row(rows[r][f], r, f, extremes);
            tl_pack_series(&p, rows[r][f], 1);
        }
    for (int r = 0; r < RANKS; r++)
        tl_pack_i64(&p, extremes ? INT64_MIN + r : -1000 * r);
    for (int r = 0; r < RANKS; r++) {
        tl_pack_u64(&p, 1);
        tl_pack_u64(&p, 5000 + (uint64_t)r);
        tl_pack_i64(&p, extremes ? INT64_MAX - r : -r);
    }
    for (int r = 0; r < RANKS; r++)
        tl_pack_u64(&p, 0);
    tl_pack_u64(&p, 1);
    tl_pack_u64(&p, 42);
    for (int r = 0; r < RANKS; r++)
        for (int f = 0; f < 2; f++) {
            for (int b = 0; b < NB; b++)
                paths[r][f][b] = f == 0 ? 0 : value(r, 1, b, 0) / 2;
            tl_pack_series(&p, paths[r][f], 1);
        }
    tl_pack_u64(&p, 7);
    *pp = p;
}

static unsigned char *pack(size_t max_series, int extremes, size_t *len, size_t *raw)
{
    tl_pack p;
    if (tl_pack_init(&p, NB, max_series) != 0)
        return NULL;
    pack_into(&p, extremes);
    *raw = p.total;
    return tl_pack_deflate(&p, len);
}

/* The pieces a sink got: their bytes, and whether all but the last were
 * whole and the last one shorter. */
#define PIECE 16
typedef struct pieces {
    unsigned char b[1 << 14];
    size_t len, n;
    int whole, ended;
} pieces;

static void take(void *ctx, const unsigned char *bytes, size_t len)
{
    pieces *q = ctx;
    if (q->ended || len > PIECE || q->len + len > sizeof q->b) {
        q->whole = 0;
        return;
    }
    memcpy(q->b + q->len, bytes, len);
    q->len += len, q->n++;
    q->ended = len < PIECE;
}

static uint64_t get_u64(const unsigned char *b, size_t len, size_t *at)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && *at < len; shift += 7) {
        unsigned char c = b[(*at)++];
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return v;
    }
    *at = len + 1;
    return 0;
}

static uint64_t le64(const unsigned char *h)
{
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--)
        v = v << 8 | h[k];
    return v;
}

/* A sink's stream of count series read into pack `to` as
 * report/merge/timeline_file.c's relay does: one seen before by its
 * number, a new one by its hashes and bytes. 0 when it was whole. */
static int relay(const unsigned char *b, size_t len, tl_pack *to, int count)
{
    uint64_t map[64];
    size_t at = 0, nmap = 0;
    for (int i = 0; i < count; i++) {
        uint64_t s = get_u64(b, len, &at);
        if (s < nmap) {
            tl_pack_u64(to, map[s]);
            continue;
        }
        if (s != nmap || nmap == 64 || at + 16 > len)
            return -1;
        uint64_t h1 = le64(b + at), h2 = le64(b + at + 8);
        at += 16;
        uint64_t n = get_u64(b, len, &at);
        if (at + n > len)
            return -1;
        map[nmap++] = tl_pack_series_bytes(to, h1, h2, b + at, n);
        at += n;
    }
    return at == len ? 0 : -1;
}

static void rank_rows(tl_pack *p, int r)
{
    uint64_t v[NB];
    for (int f = 0; f < FIELDS; f++) {
        row(v, r, f, 0);
        tl_pack_series(p, v, 1);
    }
}

static int inflated(const unsigned char *z, size_t zlen, unsigned char *out, uLongf *outlen)
{
    return z && uncompress(out, outlen, z, zlen) == Z_OK;
}

/* Rank 1's rows, then ranks 0 to 3's: packed in one pack, and handed on
 * from a child (ranks 0 to 3) to an inner rank (rank 1 first) to rank 0. */
static int sink_relays(char *why, size_t whylen)
{
    static pieces child, inner;
    static unsigned char want[1 << 14], got[1 << 14];
    uLongf wantlen = sizeof want, gotlen = sizeof got;
    size_t alen = 0, clen = 0;
    tl_pack a, s1, s2, c;
    tl_pack_init(&a, NB, 64);
    rank_rows(&a, 1);
    for (int r = 0; r < RANKS; r++)
        rank_rows(&a, r);
    unsigned char *za = tl_pack_deflate(&a, &alen);
    child.whole = inner.whole = 1;
    tl_pack_init_sink(&s1, NB, 64, take, &child, PIECE);
    for (int r = 0; r < RANKS; r++)
        rank_rows(&s1, r);
    int rc = tl_pack_end(&s1);
    tl_pack_init_sink(&s2, NB, 64, take, &inner, PIECE);
    rank_rows(&s2, 1);
    rc |= relay(child.b, child.len, &s2, RANKS * FIELDS);
    rc |= tl_pack_end(&s2);
    tl_pack_init(&c, NB, 64);
    rc |= relay(inner.b, inner.len, &c, (RANKS + 1) * FIELDS);
    unsigned char *zc = tl_pack_deflate(&c, &clen);
    int good = rc == 0 && inflated(za, alen, want, &wantlen) && inflated(zc, clen, got, &gotlen) &&
               gotlen == wantlen && memcmp(got, want, wantlen) == 0 && child.whole && child.ended &&
               inner.whole && inner.ended;
    snprintf(why, whylen, "%zu and %zu bytes in %zu and %zu pieces, %lu in rank 0's pack, %lu in one pack%s",
             child.len, inner.len, child.n, inner.n, (unsigned long)gotlen, (unsigned long)wantlen,
             child.whole && child.ended && inner.whole && inner.ended
                 ? ""
                 : ", not whole pieces then a short one");
    free(za), free(zc);
    return good;
}

/* The rows pack() wrote, as read: rank r's field f, path 0's f. */
static void want_row(double *v, int r, int f, int extremes)
{
    for (int b = 0; b < NB; b++)
        v[b] = (double)value(r, f, b, extremes);
}

static void want_path(double *v, int r, int f)
{
    for (int b = 0; b < NB; b++)
        v[b] = f == 0 ? 0 : (double)(value(r, 1, b, 0) / 2);
}

static int same(const double *a, const double *b)
{
    return memcmp(a, b, sizeof *a * NB) == 0;
}

/* The rows and paths as read against pack()'s; 0 or -1 with why. */
static int check_series(const timeline *tl, int extremes, char *why, size_t whylen)
{
    double v[NB];
    for (int r = 0; r < RANKS; r++) {
        for (int f = 0; f < FIELDS; f++) {
            want_row(v, r, f, extremes);
            if (!same(vtl_rank_series(tl, r, f), v))
                return snprintf(why, whylen, "rank %d field %d differs", r, f), -1;
        }
        for (int f = 0; f < 2; f++) {
            want_path(v, r, f);
            if (!same(vtl_path_series(tl, 0, r, f), v))
                return snprintf(why, whylen, "path 0 rank %d field %d differs", r, f), -1;
        }
    }
    return 0;
}

/* Marks, drops, the path's id, what it spilled, and the sums over all ranks. */
static int check_rest(const timeline *tl, int extremes, char *why, size_t whylen)
{
    /* levels past an int (the extremes) are not kept, as before */
    int marks = extremes ? 0 : RANKS;
    if (tl->nphases != marks || tl->dropped_ranks != 0 || tl->npaths != 1 || tl->path_cnode[0] != 42 ||
        tl->spilled != 7)
        return snprintf(why, whylen, "%d marks (want %d), %d ranks dropping, %d paths, id %d, spilled %g",
                        tl->nphases, marks, tl->dropped_ranks, tl->npaths,
                        tl->npaths ? tl->path_cnode[0] : -1, tl->spilled),
               -1;
    for (int i = 0; i < marks; i++)
        if (tl->phase[i].rank != i || tl->phase[i].level != -i || tl->phase[i].t != (5000 + i) * 1e-9)
            return snprintf(why, whylen, "mark %d: rank %d level %d at %g s", i, tl->phase[i].rank,
                            tl->phase[i].level, tl->phase[i].t),
                   -1;
    for (int f = 0; f < FIELDS; f++)
        for (int b = 0; b < NB; b++) {
            double sum = 0;
            for (int r = 0; r < RANKS; r++)
                sum += (double)value(r, f, b, extremes);
            if (tl->total[f * NB + b] != sum)
                return snprintf(why, whylen, "field %d bucket %d: total %g, want %g", f, b,
                                tl->total[f * NB + b], sum),
                       -1;
        }
    return 0;
}

/* The distinct rows and paths pack() wrote: the least a store can hold. */
static size_t distinct_series(int extremes)
{
    static double seen[RANKS * (FIELDS + 2)][NB];
    size_t n = 0;
    for (int r = 0; r < RANKS; r++)
        for (int f = 0; f < FIELDS + 2; f++) {
            double v[NB];
            if (f < FIELDS)
                want_row(v, r, f, extremes);
            else
                want_path(v, r, f - FIELDS);
            size_t i = 0;
            while (i < n && !same(seen[i], v))
                i++;
            if (i == n)
                memcpy(seen[n++], v, sizeof v);
        }
    return n;
}

/* Packs, unpacks, compares; *raw the bytes before zlib, *held the series
 * the store holds besides its zeros. */
static int round_trip(size_t max_series, int extremes, size_t *raw, size_t *held, char *why, size_t whylen)
{
    size_t zlen = 0;
    unsigned char *z = pack(max_series, extremes, &zlen, raw);
    timeline tl = { 0 };
    int good = z && vtl_unpack(z, zlen, &tl) == 0 && vtl_store_finish(&tl) == 0;
    if (!good)
        snprintf(why, whylen, "not read");
    good =
        good && check_series(&tl, extremes, why, whylen) == 0 && check_rest(&tl, extremes, why, whylen) == 0;
    *held = tl.nseries - 1;
    vtl_store_free(&tl);
    free(z);
    return good;
}

int main(void)
{
    char why[256] = "";
    size_t shared = 0, each = 0, ext = 0, held = 0, held_each = 0, held3 = 0;
    /* ranks 0 and 2, 1 and 3 are alike, and all field-4 rows are zeros;
     * the path's MPI rows are zeros too: each distinct series held once */
    int ok = round_trip(64, 0, &shared, &held, why, sizeof why);
    size_t distinct = distinct_series(0);
    printf("shared %s %zu bytes before zlib, %zu series held for %zu distinct in %d rows%s%s\n",
           ok && held == distinct ? "ok" : "bad", shared, held, distinct, RANKS * (FIELDS + 2),
           ok ? "" : ": ", ok ? "" : why);
    size_t three = 0;
    ok = round_trip(0, 0, &each, &held_each, why, sizeof why) &&
         round_trip(3, 0, &three, &held3, why, sizeof why);
    printf(
        "capped %s %zu bytes before zlib with none remembered, %zu with 3, %zu with 64 (%zu, %zu, %zu series "
        "held)%s%s\n",
        ok && each > three && three > shared ? "ok" : "bad", each, three, shared, held_each, held3, held,
        ok ? "" : ": ", ok ? "" : why);
    ok = round_trip(64, 1, &ext, &held, why, sizeof why);
    printf("extremes %s %zu bytes before zlib%s%s\n", ok ? "ok" : "bad", ext, ok ? "" : ": ", ok ? "" : why);
    ok = sink_relays(why, sizeof why);
    printf("sink %s %s\n", ok ? "ok" : "bad", why);
    return 0;
}
