/* timeline_file.c - the ranks' time histograms streamed into one packed member. */
#include "report/merge/timeline_file.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/log.h"
#include "report/merge/clock_align.h"
#include "report/merge/timeline_pack.h"
#include "report/merge/timeline_tree.h"

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

/* ---- this rank's records --------------------------------------------------------- */

/* A simulated rank j's series are its real rank's moved right by j % 4
 * buckets (HPROF_SIMULATE_RANKS): four versions of a rank's series. */
#define SIM_SHAPES 4

typedef struct own_part {
    uint32_t n;
    int k;   /* chosen paths */
    int sim; /* ranks each rank stands for (HPROF_SIMULATE_RANKS) */
    long long offset;
    const timeline_phase_mark *phases;
    int nphases;
    unsigned long long dropped, spilled;
    uint64_t *row[SIM_SHAPES];  /* n x TL_NFIELDS, bucket-major; NULL: zeros */
    uint64_t *prow[SIM_SHAPES]; /* k x 2 series of n; NULL: zeros */
} own_part;

/* Versions 1..3 of the row and the paths' series, when simulated ranks
 * need them (left NULL when memory is short: version 0 stands in). */
static void make_shapes(own_part *m, int sim)
{
    size_t cells = (size_t)m->n * TL_NFIELDS, pcells = (size_t)m->k * 2 * m->n;
    for (int s = 1; s < SIM_SHAPES && s < sim; s++) {
        if (m->row[0] && (m->row[s] = malloc(sizeof(uint64_t) * cells)) != NULL) {
            memcpy(m->row[s], m->row[0], sizeof(uint64_t) * cells);
            shift_buckets(m->row[s], m->n, s, TL_NFIELDS, 1, TL_NFIELDS);
        }
        if (pcells && m->prow[0] && (m->prow[s] = malloc(sizeof(uint64_t) * pcells)) != NULL) {
            memcpy(m->prow[s], m->prow[0], sizeof(uint64_t) * pcells);
            shift_buckets(m->prow[s], m->n, s, (size_t)m->k * 2, m->n, 1);
        }
    }
}

/* One record (timeline_file.h), of shape s. */
static void put_record(tl_pack *t, const own_part *m, int s)
{
    const uint64_t *row = m->row[s] ? m->row[s] : m->row[0], *prow = m->prow[s] ? m->prow[s] : m->prow[0];
    tl_pack_i64(t, m->offset);
    tl_pack_u64(t, (uint64_t)m->nphases);
    for (int i = 0; i < m->nphases; i++) {
        long long ns = (long long)m->phases[i].ns + m->offset;
        tl_pack_u64(t, (uint64_t)(ns > 0 ? ns : 0));
        tl_pack_i64(t, m->phases[i].level);
    }
    tl_pack_u64(t, m->dropped);
    tl_pack_u64(t, m->spilled);
    for (int f = 0; f < TL_NFIELDS; f++)
        tl_pack_series(t, row ? row + f : NULL, TL_NFIELDS);
    for (int i = 0; i < 2 * m->k; i++)
        tl_pack_series(t, prow ? prow + (size_t)i * m->n : NULL, 1);
}

/* ---- the children's records, passed on ------------------------------------------- */

/* A child's stream read into the pack: its series numbers become the
 * pack's (map), a series the pack has seen is named, not stored again; a
 * new one's bytes are copied as they came, its hashes with them. */
typedef struct relay {
    tl_down in;
    uint64_t *map; /* the child's series number -> the pack's */
    size_t nmap, cap;
    unsigned char *bytes; /* one series' values encoded */
    int failed;
} relay;

typedef struct tally {
    unsigned long long dropped;
    long long dropped_ranks;
} tally;

static uint64_t hash_at(const unsigned char *h)
{
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--)
        v = v << 8 | h[k];
    return v;
}

static void relay_series(tl_pack *t, relay *r, uint32_t n)
{
    uint64_t s = tl_down_u64(&r->in);
    if (s < r->nmap) {
        tl_pack_u64(t, r->map[s]);
        return;
    }
    unsigned char h[16];
    if (s != r->nmap || r->in.bad || tl_down_bytes(&r->in, h, sizeof h) != 0) {
        r->failed = 1;
        return;
    }
    uint64_t len = tl_down_u64(&r->in);
    if (len > TL_SERIES_MAX_BYTES(n) || tl_down_bytes(&r->in, r->bytes, (size_t)len) != 0) {
        r->failed = 1;
        return;
    }
    if (r->nmap == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 256;
        uint64_t *map = realloc(r->map, sizeof *map * cap);
        if (!map) {
            r->failed = 1;
            return;
        }
        r->map = map, r->cap = cap;
    }
    r->map[r->nmap++] = tl_pack_series_bytes(t, hash_at(h), hash_at(h + 8), r->bytes, (size_t)len);
}

static void relay_record(tl_pack *t, relay *r, uint32_t n, int k, tally *sum)
{
    tl_pack_i64(t, tl_down_i64(&r->in));
    uint64_t np = tl_down_u64(&r->in);
    if (np > TIMELINE_MAX_PHASES) {
        r->failed = 1;
        return;
    }
    tl_pack_u64(t, np);
    for (uint64_t i = 0; i < np; i++) {
        tl_pack_u64(t, tl_down_u64(&r->in));
        tl_pack_i64(t, tl_down_i64(&r->in));
    }
    uint64_t dropped = tl_down_u64(&r->in);
    tl_pack_u64(t, dropped);
    tl_pack_u64(t, tl_down_u64(&r->in));
    if (dropped)
        sum->dropped += dropped, sum->dropped_ranks++;
    for (int i = 0; i < TL_NFIELDS + 2 * k && !r->failed && !r->in.bad; i++)
        relay_series(t, r, n);
    r->failed |= r->in.bad;
}

/* The records of the subtree under child (records of them), into t;
 * -1 when the stream was not what it should be, -2 when this rank had no
 * memory to take it. */
static int relay_child(tl_pack *t, MPI_Comm comm, int child, long long records, uint32_t n, int k, tally *sum)
{
    relay *r = calloc(1, sizeof *r);
    unsigned char *bytes = malloc(TL_SERIES_MAX_BYTES(n));
    if (!r || !bytes) { /* the child's stream is taken all the same */
        tl_down d;
        tl_down_init(&d, comm, child);
        tl_down_drain(&d);
        free(r), free(bytes);
        return -2;
    }
    tl_down_init(&r->in, comm, child);
    r->bytes = bytes;
    for (long long i = 0; i < records && !r->failed; i++)
        relay_record(t, r, n, k, sum);
    int rc = tl_down_drain(&r->in) != 0 || r->failed ? -1 : 0;
    free(r->map), free(r->bytes), free(r);
    return rc;
}

/* ---- the member --------------------------------------------------------------- */

/* Distinct series each pack remembers for sharing (20 bytes each): a
 * series past them is stored, not remembered, and one equal to it later
 * is stored again. */
#define TIMELINE_SHARED_MAX ((size_t)1 << 18)

static void put_head(tl_pack *t, uint32_t n, uint32_t shift, long long ranks, const timeline_paths *tp)
{
    int k = tp ? tp->k : 0;
    tl_pack_bytes(t, TIMELINE_MAGIC, sizeof TIMELINE_MAGIC - 1);
    tl_pack_u64(t, 1ull << shift);
    tl_pack_u64(t, n);
    tl_pack_u64(t, (uint64_t)ranks);
    tl_pack_u64(t, TL_NFIELDS);
    tl_pack_u64(t, (uint64_t)k);
    for (int i = 0; i < k; i++)
        tl_pack_u64(t, (uint64_t)tp->ids[i]);
}

/* This rank's records, then its subtree's, in rank order. -1 or -2 as
 * relay_child when one failed (the streams are taken all the same). */
static int stream_subtree(tl_pack *t, MPI_Comm comm, int rank, int size, const own_part *m, int sim,
                          tally *sum)
{
    int rc = 0;
    for (int j = 0; j < sim; j++)
        put_record(t, m, j % SIM_SHAPES);
    if (m->dropped)
        sum->dropped += m->dropped * (unsigned long long)sim, sum->dropped_ranks += sim;
    for (int d = tl_tree_next_child(rank, size, 0); d; d = tl_tree_next_child(rank, size, d)) {
        int child =
            relay_child(t, comm, rank + d, (long long)tl_tree_subtree(rank, size, d) * sim, m->n, m->k, sum);
        rc = child < rc ? child : rc;
    }
    return rc;
}

/* The marks ranks could not keep (their tables hold TIMELINE_MAX_PHASES):
 * one line for the user. */
static void say_dropped(const tally *sum, long long ranks)
{
    if (sum->dropped)
        hprof_say("MPI_Pcontrol: %llu marks on %lld of %lld ranks not kept, past the first %d of a rank; "
                  "the time line's phases end at each rank's last kept mark",
                  sum->dropped, sum->dropped_ranks, ranks, TIMELINE_MAX_PHASES);
}

/* Rank 0 packs the head and every record, deflating as it goes; the
 * others hand their subtree's records to their parent. */
static unsigned char *stream_member(MPI_Comm comm, int rank, int size, const own_part *m, uint32_t shift,
                                    const timeline_paths *tp, size_t *len, timeline_outcome *outcome)
{
    int sim = m->sim;
    tally sum = { 0, 0 };
    tl_pack t;
    if (rank != 0) {
        tl_up *up = malloc(sizeof *up);
        if (!up) { /* an empty stream: the parent finds the records missing */
            tl_up quick;
            tl_up_init(&quick, comm, rank & (rank - 1));
            tl_up_piece(&quick, NULL, 0);
            tl_up_finish(&quick);
            tl_pack_init_sink(&t, m->n, 0, NULL, NULL, TL_PIECE);
            stream_subtree(&t, comm, rank, size, m, sim, &sum);
            tl_pack_free(&t);
            return NULL;
        }
        tl_up_init(up, comm, rank & (rank - 1));
        tl_pack_init_sink(&t, m->n, TIMELINE_SHARED_MAX, tl_up_piece, up, TL_PIECE);
        if (stream_subtree(&t, comm, rank, size, m, sim, &sum) != 0)
            t.failed = 1;
        tl_pack_end(&t);
        tl_up_finish(up);
        free(up);
        return NULL;
    }
    tl_pack_init(&t, m->n, TIMELINE_SHARED_MAX);
    put_head(&t, m->n, shift, (long long)size * sim, tp);
    int rc = stream_subtree(&t, comm, rank, size, m, sim, &sum);
    say_dropped(&sum, (long long)size * sim);
    if (rc != 0)
        t.failed = 1;
    unsigned char *member = tl_pack_deflate(&t, len);
    *outcome = timeline_outcome_of(1, rc, member != NULL);
    return member;
}

void timeline_file_sizes(const hprof_timeline *mine, const timeline_paths *paths,
                         unsigned sizes[TIMELINE_SIZES])
{
    sizes[0] = mine && mine->bucket ? mine->nbuckets : 0;
    sizes[1] = mine ? mine->shift : 0;
    sizes[2] = paths && paths->lp ? paths->lp->path_shift : 0;
    sizes[3] = hprof_config.simulate_ranks > 1 ? (unsigned)hprof_config.simulate_ranks : 1;
}

unsigned char *timeline_file_member(MPI_Comm comm, const unsigned sizes[TIMELINE_SIZES],
                                    const hprof_timeline *mine, const timeline_phase_mark *phases,
                                    int nphases, unsigned long long phases_dropped,
                                    const timeline_paths *paths, size_t *len, timeline_outcome *outcome)
{
    int rank, size;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    unsigned common[3] = { sizes[0], sizes[1], sizes[3] };
    /* a path log folded past the histogram widens the whole timeline */
    if (paths && paths->k > 0 && sizes[2] > common[1])
        common[1] = sizes[2];
    *outcome = TIMELINE_NONE; /* stream_member tells rank 0 what became of it */
    if (common[0] == 0)
        return NULL;
    int with_paths = paths && paths->k > 0;
    own_part m = {
        common[0], with_paths ? paths->k : 0, (int)common[2], 0, phases, nphases, phases_dropped, 0, { NULL },
        { NULL }
    };
    m.row[0] = common_row(mine, m.n, common[1]);
    /* bucket 0 is rank 0's start on every rank, to the nearest bucket */
    long long width = 1ll << common[1];
    m.offset = clock_align_offset(comm);
    long long kshift = (m.offset >= 0 ? m.offset + width / 2 : m.offset - width / 2) / width;
    shift_buckets(m.row[0], m.n, kshift, TL_NFIELDS, 1, TL_NFIELDS);
    m.prow[0] = with_paths ? path_series_rows(paths, common[1], m.n) : NULL;
    shift_buckets(m.prow[0], m.n, kshift, (size_t)m.k * 2, m.n, 1);
    m.spilled = with_paths && paths->lp ? paths->lp->path_spilled[0] + paths->lp->path_spilled[1] : 0;
    make_shapes(&m, m.sim);
    unsigned char *member =
        stream_member(comm, rank, size, &m, common[1], with_paths ? paths : NULL, len, outcome);
    for (int s = 0; s < SIM_SHAPES; s++)
        free(m.row[s]), free(m.prow[s]);
    return member;
}
