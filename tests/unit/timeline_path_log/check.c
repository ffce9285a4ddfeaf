/*
 * check.c - core/path_log.c on its own, with known answers:
 *   steady   few nodes, a long run: the log folds with the histogram, no
 *            time is spilled, every (node, bucket) sum is exact;
 *   many     more distinct nodes per bucket than the log holds: it folds
 *            at most PATH_LOG_MAX_EXTRA times past the histogram, then
 *            spills; logged + spilled = added, and the entries never
 *            exceed the capacity (memory is fixed);
 *   merge    an ended thread's log added through a node map;
 *   calls    MPI calls added through the latest call's bucket
 *            (timeline_add_call) land where timeline_add_span and
 *            timeline_add_count put them, also across folds made
 *            between two calls in one bucket (timeline_fold_to, a
 *            thread's merge).
 * Prints one "name ok ..." or "name bad ..." line each.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/path_log.h"
#include "core/timeline.h"

static uint64_t logged(const hprof_path_log *l, int field, uint32_t node)
{
    uint64_t s = 0;
    for (uint32_t i = 0; i < l->n; i++)
        if (node == UINT32_MAX || l->e[i].node == node)
            s += l->e[i].ns[field];
    return s;
}

/* Adds like the runtime does: the histogram first (it folds), then the log. */
static void add(hprof_timeline *tl, hprof_path_log *l, int field, uint32_t node, uint64_t end, uint64_t dur)
{
    timeline_add_span(tl, field == PL_MPI ? TL_MPI_NS : TL_COMP_NS, end, dur);
    path_log_add(l, tl->shift, field, node, end, dur);
}

static int steady(void)
{
    hprof_timeline tl;
    hprof_path_log l;
    uint64_t want[4][2] = { { 0 } };
    timeline_init(&tl, 16);
    path_log_init(&l, 16);
    uint64_t t = 1000;
    srand(7);
    for (int i = 0; i < 200000; i++) {
        uint32_t node = (uint32_t)(i % 4) + 1;
        int f = i % 3 == 0 ? PL_COMP : PL_MPI;
        uint64_t d = 1000 + (uint64_t)(rand() % 5000000); /* up to 5 ms: spans buckets early on */
        t += d;
        add(&tl, &l, f, node, t, d);
        want[node - 1][f] += d;
    }
    int bad = l.spilled[0] + l.spilled[1] != 0 || l.shift != tl.shift;
    for (uint32_t n = 1; n <= 4; n++)
        for (int f = 0; f < 2; f++)
            bad |= logged(&l, f, n) != want[n - 1][f];
    /* per bucket, the log's sums are the histogram's */
    for (uint32_t b = 0; b < tl.nbuckets; b++) {
        uint64_t s = 0;
        for (uint32_t i = 0; i < l.n; i++)
            if (l.e[i].bucket == b)
                s += l.e[i].ns[PL_MPI];
        bad |= s != tl.bucket[b][TL_MPI_NS];
    }
    printf("steady %s entries=%u cap=%u shift=%u hist_shift=%u\n", bad ? "bad" : "ok", l.n, l.cap, l.shift,
           tl.shift);
    path_log_free(&l);
    timeline_free(&tl);
    return bad;
}

static int many(void)
{
    hprof_timeline tl;
    hprof_path_log l;
    uint64_t added = 0;
    uint32_t most = 0;
    timeline_init(&tl, 4); /* a log of 4 x 64 entries */
    path_log_init(&l, 4);
    uint64_t t = 1000;
    for (int i = 0; i < 100000; i++) {
        t += 200;
        add(&tl, &l, PL_MPI, (uint32_t)(i * 7919 % 100000), t, 100);
        added += 100;
        most = l.n > most ? l.n : most;
    }
    uint64_t got = logged(&l, PL_MPI, UINT32_MAX);
    int bad = got + l.spilled[PL_MPI] != added || most > l.cap || l.spilled[PL_MPI] == 0 ||
              l.shift > tl.shift + PATH_LOG_MAX_EXTRA;
    printf("many %s logged=%" PRIu64 " spilled=%" PRIu64 " added=%" PRIu64
           " most=%u cap=%u shift=%u hist_shift=%u\n",
           bad ? "bad" : "ok", got, l.spilled[PL_MPI], added, most, l.cap, l.shift, tl.shift);
    path_log_free(&l);
    timeline_free(&tl);
    return bad;
}

static int merge(void)
{
    hprof_timeline ta, tb;
    hprof_path_log a, b;
    uint32_t map[4] = { 0, 3, 3, 1 }; /* b's nodes 1 and 2 become a's 3 */
    timeline_init(&ta, 8), timeline_init(&tb, 8);
    path_log_init(&a, 8), path_log_init(&b, 8);
    add(&ta, &a, PL_COMP, 3, 5000000, 1000);
    add(&tb, &b, PL_COMP, 1, 3000000, 700);
    add(&tb, &b, PL_COMP, 2, 90000000, 300); /* b folds once or more */
    add(&tb, &b, PL_MPI, 3, 95000000, 50);
    path_log_add_into(&a, &b, map);
    int bad = logged(&a, PL_COMP, 3) != 2000 || logged(&a, PL_MPI, 1) != 50 || a.shift < b.shift;
    printf("merge %s comp3=%" PRIu64 " mpi1=%" PRIu64 "\n", bad ? "bad" : "ok", logged(&a, PL_COMP, 3),
           logged(&a, PL_MPI, 1));
    path_log_free(&a), path_log_free(&b), timeline_free(&ta), timeline_free(&tb);
    return bad;
}

/* ta through timeline_add_call, tb through the general functions. */
static void add_call_both(hprof_timeline *ta, hprof_timeline *tb, uint64_t end, uint64_t dur, uint64_t bytes)
{
    timeline_add_call(ta, end, dur, bytes, 2 * bytes);
    timeline_add_span(tb, TL_MPI_NS, end, dur);
    timeline_add_count(tb, TL_VISITS, end, 1);
    timeline_add_count(tb, TL_BYTES_SENT, end, bytes);
    timeline_add_count(tb, TL_BYTES_RECEIVED, end, 2 * bytes);
}

static int calls(void)
{
    hprof_timeline ta, tb;
    timeline_init(&ta, 16), timeline_init(&tb, 16);
    uint64_t t = 1000, folds = 0;
    srand(11);
    for (int i = 0; i < 100000; i++) {
        uint64_t d = 10 + (uint64_t)(rand() % 4000); /* calls of up to 4 us, most in one bucket */
        t += d + (uint64_t)(rand() % 2000);
        add_call_both(&ta, &tb, t, d, (uint64_t)(i % 7));
        if (i % 25000 == 24999) { /* a merge folds both: the next call is in the same bucket */
            timeline_fold_to(&ta, ta.shift + 1), timeline_fold_to(&tb, tb.shift + 1);
            folds++;
            add_call_both(&ta, &tb, t + 1, 1, 1);
        }
    }
    int bad = ta.shift != tb.shift;
    uint32_t wrong = 0;
    for (uint32_t b = 0; b < ta.nbuckets && !bad; b++)
        for (int f = 0; f < TL_NFIELDS; f++)
            wrong += ta.bucket[b][f] != tb.bucket[b][f];
    bad |= wrong != 0;
    printf("calls %s width 2^%u, %" PRIu64 " folds between calls, %u fields differ\n", bad ? "bad" : "ok",
           ta.shift, folds, wrong);
    timeline_free(&ta), timeline_free(&tb);
    return bad;
}

int main(void)
{
    timeline_set_origin(0);
    int bad = steady();
    bad |= many();
    bad |= merge();
    bad |= calls();
    return bad;
}
