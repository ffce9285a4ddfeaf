/* path_log.c - per-thread log of time per call path and bucket (path_log.h). */
#include "core/path_log.h"

#include <stdlib.h>
#include <string.h>

#include "core/timeline.h"

#define EMPTY UINT32_MAX

int path_log_init(hprof_path_log *l, uint32_t nbuckets)
{
    memset(l, 0, sizeof *l);
    l->shift = TIMELINE_FIRST_SHIFT;
    if (nbuckets == 0)
        return 0;
    uint32_t cap = nbuckets * PATH_LOG_PER_BUCKET, slots = 1;
    while (slots < 2 * cap)
        slots <<= 1;
    /* Large blocks come from mmap: pages are committed as the log fills. */
    l->e = calloc(cap, sizeof *l->e);
    l->index = malloc(sizeof *l->index * slots);
    if (!l->e || !l->index) {
        path_log_free(l);
        return -1;
    }
    l->cap = cap;
    l->index_mask = slots - 1;
    l->max_bucket = nbuckets;
    return 0;
}

void path_log_free(hprof_path_log *l)
{
    free(l->e);
    free(l->index);
    memset(l, 0, sizeof *l);
}

static uint32_t hash(uint32_t bucket, uint32_t node)
{
    uint64_t k = ((uint64_t)bucket << 32 | node) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(k >> 32);
}

/* Merges neighbouring buckets: entries of one node in buckets 2i and 2i+1
 * become one entry of bucket i, in place (order kept). */
static void fold_once(hprof_path_log *l)
{
    memset(l->index, 0xff, sizeof *l->index * ((size_t)l->index_mask + 1));
    uint32_t w = 0, n = l->n;
    for (uint32_t i = 0; i < n && i < l->cap; i++) {
        path_entry e = l->e[i];
        e.bucket >>= 1;
        uint32_t h = hash(e.bucket, e.node) & l->index_mask;
        while (l->index[h] != EMPTY &&
               (l->e[l->index[h]].bucket != e.bucket || l->e[l->index[h]].node != e.node))
            h = (h + 1) & l->index_mask;
        if (l->index[h] != EMPTY) {
            for (int f = 0; f < PL_NFIELDS; f++)
                l->e[l->index[h]].ns[f] += e.ns[f];
        } else {
            l->index[h] = w;
            l->e[w++] = e;
        }
    }
    l->n = w;
    l->shift++;
    memset(l->cache, 0, sizeof l->cache);
}

static void fold_to(hprof_path_log *l, uint32_t shift)
{
    while (l->shift < shift && l->shift < 63)
        fold_once(l);
}

/* Room for one more entry: fold until a quarter is free, but not beyond
 * PATH_LOG_MAX_EXTRA folds past the histogram. 0, or -1 (no room). */
static int make_room(hprof_path_log *l, uint32_t hist_shift)
{
    while (l->n > l->cap - l->cap / 4 && l->shift < hist_shift + PATH_LOG_MAX_EXTRA && l->shift < 63)
        fold_once(l);
    return l->n < l->cap ? 0 : -1;
}

/* v ns of field on node at rel ns since the origin. */
static void add_one(hprof_path_log *l, uint32_t hist_shift, int field, uint32_t node, uint64_t rel,
                    uint64_t v)
{
    uint64_t b = rel >> l->shift;
    if (b >= l->max_bucket)
        b = l->max_bucket - 1;
    uint32_t slot = PATH_LOG_SLOT(node);
    uint32_t i = l->cache[slot];
    if (i && l->e[i - 1].node == node && l->e[i - 1].bucket == b) {
        l->e[i - 1].ns[field] += v;
        return;
    }
    if (l->n >= l->cap) {
        if (make_room(l, hist_shift) != 0) {
            l->spilled[field] += v;
            return;
        }
        b = rel >> l->shift;
        if (b >= l->max_bucket)
            b = l->max_bucket - 1;
    }
    /* At finalize the closing thread adds another thread's last interval
     * while that thread may still run (as for the histogram): whatever the
     * interleaving, no entry is written past the capacity. */
    uint32_t k = l->n;
    if (k >= l->cap) {
        l->spilled[field] += v;
        return;
    }
    path_entry *e = &l->e[k];
    e->bucket = (uint32_t)b;
    e->node = node;
    e->ns[PL_MPI] = e->ns[PL_COMP] = 0;
    e->ns[field] = v;
    l->n = k + 1;
    l->cache[slot] = k + 1;
}

void path_log_add(hprof_path_log *l, uint32_t hist_shift, int field, uint32_t node, uint64_t end_ns,
                  uint64_t dur_ns)
{
    if (!l->e || dur_ns == 0)
        return;
    if (l->shift < hist_shift)
        fold_to(l, hist_shift);
    uint64_t origin = timeline_origin();
    uint64_t end = end_ns > origin ? end_ns - origin : 0;
    uint64_t start = end > dur_ns ? end - dur_ns : 0;
    uint64_t rest = dur_ns - (end - start); /* before the origin: bucket 0 */
    /* the common case: within one bucket */
    if ((start >> l->shift) == (end >> l->shift)) {
        add_one(l, hist_shift, field, node, end, dur_ns);
        return;
    }
    while ((start >> l->shift) < (end >> l->shift)) {
        uint64_t edge = ((start >> l->shift) + 1) << l->shift;
        add_one(l, hist_shift, field, node, start, edge - start + rest);
        rest = 0;
        start = edge; /* a fold inside add_one only widens: edges stay edges */
    }
    if (end > start || rest)
        add_one(l, hist_shift, field, node, start, end - start + rest);
}

void path_log_add_into(hprof_path_log *dst, const hprof_path_log *src, const uint32_t *map)
{
    if (!dst->e || !src->e)
        return;
    fold_to(dst, src->shift);
    for (uint32_t i = 0; i < src->n; i++) {
        const path_entry *e = &src->e[i];
        uint64_t rel = (uint64_t)e->bucket << src->shift;
        for (int f = 0; f < PL_NFIELDS; f++)
            if (e->ns[f])
                add_one(dst, dst->shift, f, map[e->node], rel, e->ns[f]);
    }
    for (int f = 0; f < PL_NFIELDS; f++)
        dst->spilled[f] += src->spilled[f];
}
