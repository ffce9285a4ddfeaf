/* timeline_file.c - gathers the ranks' time histograms into one packed member. */
#include "report/merge/timeline_file.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "report/merge/clock_align.h"
#include "report/merge/quiet.h"
#include "report/merge/timeline_pack.h"

/* This rank's histogram at the common size and width, as a flat row of
 * n x TL_NFIELDS values (zeros when it has none). */
static uint64_t *common_row(const hprof_timeline *mine, uint32_t n, uint32_t shift)
{
    hprof_timeline tl;
    if (timeline_init(&tl, n) != 0)
        return NULL;
    tl.shift = shift;
    if (mine && mine->bucket)
        timeline_add_into(&tl, mine);
    return (uint64_t *)tl.bucket;
}

/* Moves series of n buckets (count of them, bucket b of series s at
 * v[s * sstride + b * bstride]) by k buckets; what would leave the ends
 * stays in the first or last bucket, so sums are kept. */
static void shift_buckets(uint64_t *v, uint32_t n, long long k, size_t count, size_t sstride, size_t bstride)
{
    if (!v || k == 0 || n == 0)
        return;
    for (size_t s = 0; s < count; s++) {
        uint64_t *x = v + s * sstride;
        /* each bucket's destination has been moved out already */
        for (uint32_t i = 0; i < n; i++) {
            long long b = k > 0 ? (long long)n - 1 - i : (long long)i, d = b + k;
            d = d < 0 ? 0 : d >= (long long)n ? (long long)n - 1 : d;
            if (d != b) {
                x[(size_t)d * bstride] += x[(size_t)b * bstride];
                x[(size_t)b * bstride] = 0;
            }
        }
    }
}

/* ---- one message a rank ------------------------------------------------------ */

/* A rank's part of the member, as it travels to rank 0 (64-bit words): a
 * head, its rows (cells), its MPI_Pcontrol marks (ns, level pairs, on rank
 * 0's time line), its chosen paths' series (pcells). One message a rank
 * instead of a collective a field: each collective let every rank wait for
 * the slowest to be scheduled, a third of a second at 64 ranks on 2 cores
 * under MPICH. */
enum {
    HEAD_OFFSET,
    HEAD_NPHASES,
    HEAD_SPILLED,
    HEAD_DROPPED,
    HEAD_WORDS
};
#define TAG_PART 4720 /* and 4721: quiet_gather_blobs */

typedef struct part {
    uint64_t *w;
    size_t n; /* words; 0: the rank had no memory (zeros, no marks) */
} part;

static part pack(const uint64_t *row, size_t cells, long long offset, const timeline_phase_mark *phases,
                 int nphases, unsigned long long dropped, const uint64_t *prow, size_t pcells,
                 uint64_t spilled)
{
    part p = { NULL, HEAD_WORDS + cells + 2 * (size_t)nphases + pcells };
    if (!row || !(p.w = malloc(sizeof *p.w * p.n))) {
        p.n = 0;
        return p;
    }
    p.w[HEAD_OFFSET] = (uint64_t)offset;
    p.w[HEAD_NPHASES] = (uint64_t)nphases;
    p.w[HEAD_SPILLED] = spilled;
    p.w[HEAD_DROPPED] = dropped;
    uint64_t *x = p.w + HEAD_WORDS;
    memcpy(x, row, sizeof *x * cells);
    x += cells;
    for (int i = 0; i < nphases; i++) {
        long long ns = (long long)phases[i].ns + offset;
        *x++ = (uint64_t)(ns > 0 ? ns : 0);
        *x++ = (uint64_t)(long long)phases[i].level;
    }
    if (pcells && prow)
        memcpy(x, prow, sizeof *x * pcells);
    else if (pcells) /* no memory for the series: zeros */
        memset(x, 0, sizeof *x * pcells);
    return p;
}

static const uint64_t *rows_of(const part *p)
{
    return p->n ? p->w + HEAD_WORDS : NULL;
}

/* Every rank's rows, field by field (one series each). */
static void pack_rows(tl_pack *t, const part *parts, int size)
{
    for (int r = 0; r < size; r++)
        for (int f = 0; f < TL_NFIELDS; f++) {
            const uint64_t *row = rows_of(&parts[r]);
            tl_pack_series(t, row ? row + f : NULL, TL_NFIELDS);
        }
}

static void pack_offsets_and_phases(tl_pack *t, const part *parts, int size, size_t cells)
{
    for (int r = 0; r < size; r++)
        tl_pack_i64(t, parts[r].n ? (long long)parts[r].w[HEAD_OFFSET] : 0ll);
    for (int r = 0; r < size; r++) {
        const part *p = &parts[r];
        uint64_t np = p->n ? p->w[HEAD_NPHASES] : 0;
        const uint64_t *x = p->n ? p->w + HEAD_WORDS + cells : NULL;
        tl_pack_u64(t, np);
        for (uint64_t i = 0; i < np; i++) {
            tl_pack_u64(t, x[2 * i]);
            tl_pack_i64(t, (long long)x[2 * i + 1]);
        }
    }
}

/* The marks each rank could not keep (its table holds TIMELINE_MAX_PHASES):
 * a number a rank in the member, and one line for the user. */
static void pack_phases_dropped(tl_pack *t, const part *parts, int size)
{
    unsigned long long sum = 0;
    int ranks = 0;
    for (int r = 0; r < size; r++) {
        unsigned long long dropped = parts[r].n ? parts[r].w[HEAD_DROPPED] : 0;
        tl_pack_u64(t, dropped);
        if (dropped)
            sum += dropped, ranks++;
    }
    if (sum)
        hprof_say("MPI_Pcontrol: %llu marks on %d of %d ranks not kept, past the first %d of a rank; "
                  "the time line's phases end at each rank's last kept mark",
                  sum, ranks, size, TIMELINE_MAX_PHASES);
}

/* The chosen paths and their series of every rank (k 0: none). */
static void pack_paths(tl_pack *t, const part *parts, int size, const timeline_paths *tp, size_t cells,
                       uint32_t n)
{
    unsigned long long spilled = 0;
    int k = tp ? tp->k : 0;
    tl_pack_u64(t, (uint64_t)k);
    for (int i = 0; i < k; i++)
        tl_pack_u64(t, (uint64_t)tp->ids[i]);
    for (int i = 0; i < k; i++)
        for (int r = 0; r < size; r++)
            for (int f = 0; f < 2; f++) {
                const part *p = &parts[r];
                const uint64_t *v = p->n ? p->w + HEAD_WORDS + cells + 2 * p->w[HEAD_NPHASES] +
                                               ((size_t)i * 2 + (size_t)f) * n
                                         : NULL;
                tl_pack_series(t, v, 1);
            }
    for (int r = 0; r < size; r++)
        spilled += parts[r].n ? parts[r].w[HEAD_SPILLED] : 0;
    tl_pack_u64(t, spilled);
}

/* Distinct series remembered for sharing (a table of 10 MB on rank 0): a
 * series past them is stored, not remembered, and one equal to it later is
 * stored again. Ranks that all differ this much gain nothing from more. */
#define TIMELINE_SHARED_MAX ((size_t)1 << 18)

/* The member from every rank's part (rank 0). */
static unsigned char *pack_member(const part *parts, int size, uint32_t n, uint32_t shift,
                                  const timeline_paths *tp, size_t *len)
{
    int k = tp ? tp->k : 0;
    size_t cells = (size_t)n * TL_NFIELDS, most = (size_t)size * (TL_NFIELDS + 2 * (size_t)k);
    if (most > TIMELINE_SHARED_MAX)
        most = TIMELINE_SHARED_MAX;
    tl_pack t;
    if (tl_pack_init(&t, n, most) != 0)
        return NULL;
    tl_pack_bytes(&t, TIMELINE_MAGIC, sizeof TIMELINE_MAGIC - 1);
    tl_pack_u64(&t, 1ull << shift);
    tl_pack_u64(&t, n);
    tl_pack_u64(&t, (uint64_t)size);
    tl_pack_u64(&t, TL_NFIELDS);
    pack_rows(&t, parts, size);
    pack_offsets_and_phases(&t, parts, size, cells);
    pack_phases_dropped(&t, parts, size);
    pack_paths(&t, parts, size, tp, cells, n);
    return tl_pack_deflate(&t, len);
}

unsigned char *timeline_file_member(MPI_Comm comm, const hprof_timeline *mine,
                                    const timeline_phase_mark *phases, int nphases,
                                    unsigned long long phases_dropped, const timeline_paths *paths,
                                    size_t *len)
{
    int rank, size;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    unsigned local[2] = { mine && mine->bucket ? mine->nbuckets : 0, mine ? mine->shift : 0 }, common[2];
    /* a path log folded past the histogram widens the whole timeline */
    if (paths && paths->k > 0 && paths->lp && paths->lp->path_shift > local[1])
        local[1] = paths->lp->path_shift;
    quiet_allreduce(local, common, 2, MPI_UNSIGNED, MPI_MAX, comm);
    if (common[0] == 0)
        return NULL;
    uint32_t n = common[0];
    uint64_t *row = common_row(mine, n, common[1]);
    size_t cells = (size_t)n * TL_NFIELDS;
    /* bucket 0 is rank 0's start on every rank, to the nearest bucket */
    long long offset = clock_align_offset(comm), width = 1ll << common[1];
    long long kshift = (offset >= 0 ? offset + width / 2 : offset - width / 2) / width;
    shift_buckets(row, n, kshift, TL_NFIELDS, 1, TL_NFIELDS);
    int with_paths = paths && paths->k > 0;
    size_t pcells = with_paths ? (size_t)paths->k * 2 * n : 0;
    uint64_t *prow = with_paths ? path_series_rows(paths, common[1], n) : NULL;
    shift_buckets(prow, n, kshift, (size_t)(with_paths ? paths->k : 0) * 2, n, 1);
    uint64_t spilled = with_paths && paths->lp ? paths->lp->path_spilled[0] + paths->lp->path_spilled[1] : 0;
    part me = pack(row, cells, offset, phases, nphases, phases_dropped, prow, pcells, spilled);
    free(row);
    free(prow);
    void **blobs = rank == 0 ? calloc((size_t)size, sizeof *blobs) : NULL;
    size_t *bytes = rank == 0 ? calloc((size_t)size, sizeof *bytes) : NULL;
    part *parts = rank == 0 ? calloc((size_t)size, sizeof *parts) : NULL;
    int failed = 0;
    if (rank == 0 && (!blobs || !bytes || !parts)) { /* the others' parts are taken all the same */
        free(blobs), free(bytes), free(parts);
        blobs = NULL, bytes = NULL, parts = NULL;
        failed = 1;
    }
    int got = quiet_gather_blobs(me.w, me.n * sizeof *me.w, blobs, bytes, 0, TAG_PART, comm);
    free(me.w);
    if (rank != 0)
        return NULL;
    failed |= got != 0 || me.n == 0;
    for (int r = 0; parts && r < size; r++)
        parts[r] = (part){ blobs[r], blobs[r] ? bytes[r] / sizeof(uint64_t) : 0 };
    free(blobs), free(bytes);
    unsigned char *member =
        failed ? NULL : pack_member(parts, size, n, common[1], with_paths ? paths : NULL, len);
    for (int r = 0; parts && r < size; r++)
        free(parts[r].w);
    free(parts);
    return member;
}
