/* timeline.c - folding time histograms (timeline.h). */
#include "core/timeline.h"

#include <stdlib.h>
#include <string.h>

uint64_t timeline_origin_ns;
static timeline_phase_mark phases[TIMELINE_MAX_PHASES];
static uint64_t nphases; /* calls, also those past the table (64 bits: never wraps) */

void timeline_set_origin(uint64_t origin_ns)
{
    timeline_origin_ns = origin_ns;
}
uint64_t timeline_origin(void)
{
    return timeline_origin_ns;
}

int timeline_init(hprof_timeline *tl, uint32_t nbuckets)
{
    memset(tl, 0, sizeof *tl);
    tl->shift = TIMELINE_FIRST_SHIFT;
    if (nbuckets == 0)
        return 0;
    tl->bucket = calloc(nbuckets, sizeof *tl->bucket);
    if (!tl->bucket)
        return -1;
    tl->nbuckets = nbuckets;
    return 0;
}

void timeline_free(hprof_timeline *tl)
{
    free(tl->bucket);
    memset(tl, 0, sizeof *tl);
}

/* Merges neighbouring buckets: bucket i gets 2i and 2i+1; the width doubles. */
static void fold_once(hprof_timeline *tl)
{
    uint32_t n = tl->nbuckets;
    for (uint32_t i = 0; i < n; i++)
        for (int f = 0; f < TL_NFIELDS; f++)
            tl->bucket[i][f] =
                (2 * i < n ? tl->bucket[2 * i][f] : 0) + (2 * i + 1 < n ? tl->bucket[2 * i + 1][f] : 0);
    tl->shift++;
    tl->cur_width = 0;
}

void timeline_fold_to(hprof_timeline *tl, uint32_t shift)
{
    while (tl->bucket && tl->shift < shift && tl->shift < 63)
        fold_once(tl);
}

void timeline_add_into(hprof_timeline *dst, const hprof_timeline *src)
{
    uint32_t n = __atomic_load_n(&src->nbuckets, __ATOMIC_RELAXED);
    uint32_t shift = __atomic_load_n(&src->shift, __ATOMIC_RELAXED);
    if (!dst->bucket || !src->bucket || dst->shift < shift)
        return;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t b = ((uint64_t)i << shift) >> dst->shift;
        if (b >= dst->nbuckets)
            b = dst->nbuckets - 1;
        for (int f = 0; f < TL_NFIELDS; f++)
            dst->bucket[b][f] += src->bucket[i][f];
    }
}

/* The bucket of a time since the origin, folding until it fits. */
static uint32_t bucket_of(hprof_timeline *tl, uint64_t rel)
{
    while ((rel >> tl->shift) >= tl->nbuckets && tl->shift < 63)
        fold_once(tl);
    uint64_t b = rel >> tl->shift;
    return b < tl->nbuckets ? (uint32_t)b : tl->nbuckets - 1;
}

void timeline_add_count(hprof_timeline *tl, int field, uint64_t at_ns, uint64_t n)
{
    if (!tl->bucket)
        return;
    tl->bucket[bucket_of(tl, at_ns > timeline_origin_ns ? at_ns - timeline_origin_ns : 0)][field] += n;
}

void timeline_add_span(hprof_timeline *tl, int field, uint64_t end_ns, uint64_t dur_ns)
{
    if (!tl->bucket || dur_ns == 0)
        return;
    uint64_t end = end_ns > timeline_origin_ns ? end_ns - timeline_origin_ns : 0;
    uint64_t start = end > dur_ns ? end - dur_ns : 0;
    uint32_t last = bucket_of(tl, end); /* folds first: the start's bucket stays valid */
    uint32_t b = (uint32_t)(start >> tl->shift);
    /* Time before the origin (none, but for clock steps) goes to bucket 0. */
    uint64_t rest = dur_ns - (end - start);
    for (; b < last; b++) {
        uint64_t edge = ((uint64_t)b + 1) << tl->shift;
        tl->bucket[b][field] += edge - start + rest;
        rest = 0;
        start = edge;
    }
    tl->bucket[last][field] += end - start + rest;
}

uint32_t timeline_add_call_slow(hprof_timeline *tl, uint64_t end_ns, uint64_t dur_ns, uint64_t sent,
                                uint64_t received)
{
    if (!tl->bucket)
        return UINT32_MAX;
    uint64_t end = end_ns > timeline_origin_ns ? end_ns - timeline_origin_ns : 0;
    uint32_t last = bucket_of(tl, end);
    uint64_t *b = tl->bucket[last];
    b[TL_VISITS]++;
    b[TL_BYTES_SENT] += sent;
    b[TL_BYTES_RECEIVED] += received;
    /* the common case: the call lies within one bucket */
    if (dur_ns <= end && ((end - dur_ns) >> tl->shift) == last) {
        b[TL_MPI_NS] += dur_ns;
        if ((end >> tl->shift) == last) { /* not the last bucket's overflow */
            tl->cur = last;
            tl->cur_start = (uint64_t)last << tl->shift;
            tl->cur_width = (uint64_t)1 << tl->shift;
        }
        return last;
    }
    timeline_add_span(tl, TL_MPI_NS, end_ns, dur_ns);
    return UINT32_MAX;
}

void timeline_phase(int level, uint64_t now_ns)
{
    uint64_t k = __atomic_fetch_add(&nphases, 1, __ATOMIC_RELAXED);
    if (k >= TIMELINE_MAX_PHASES)
        return;
    phases[k].ns = now_ns > timeline_origin_ns ? now_ns - timeline_origin_ns : 0;
    phases[k].level = level;
}

int timeline_phases(const timeline_phase_mark **marks)
{
    uint64_t n = __atomic_load_n(&nphases, __ATOMIC_RELAXED);
    *marks = phases;
    return n < TIMELINE_MAX_PHASES ? (int)n : TIMELINE_MAX_PHASES;
}

uint64_t timeline_phases_dropped(void)
{
    uint64_t n = __atomic_load_n(&nphases, __ATOMIC_RELAXED);
    return n > TIMELINE_MAX_PHASES ? n - TIMELINE_MAX_PHASES : 0;
}
