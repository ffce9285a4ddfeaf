/* timeline_file.c - gathers the ranks' time histograms into one text member. */
#include "timeline_file.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "log.h"

static const char *const field_names[TL_NFIELDS] = {
    "mpi_ns", "comp_ns", "visits", "bytes_sent", "bytes_received",
};

typedef struct text { char *s; size_t len, cap; int failed; } text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
    char line[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (t->failed || n < 0 || (size_t)n >= sizeof line)
        return;
    if (t->len + (size_t)n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1 << 16;
        while (cap < t->len + (size_t)n + 1)
            cap *= 2;
        char *s = realloc(t->s, cap);
        if (!s) {
            t->failed = 1;
            return;
        }
        t->s = s, t->cap = cap;
    }
    memcpy(t->s + t->len, line, (size_t)n + 1);
    t->len += (size_t)n;
}

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

static void put_rows(text *t, const uint64_t *all, int size, uint32_t n)
{
    for (int r = 0; r < size; r++)
        for (int f = 0; f < TL_NFIELDS; f++) {
            put(t, "rank %d %s", r, field_names[f]);
            for (uint32_t b = 0; b < n; b++)
                put(t, " %llu", (unsigned long long)all[((size_t)r * n + b) * TL_NFIELDS + f]);
            put(t, "\n");
        }
}

#define TAG_ALIGN 4712
#define ALIGN_TRIES 5
#define ALIGN_GOOD_NS 100000   /* a round trip this short needs no other */

static long long elapsed_ns(void) { return (long long)(hprof_now_ns() - timeline_origin()); }

/* Where this rank's measurement started on rank 0's time line (ns, > 0:
 * later than rank 0). Rank 0 asks each rank in turn for its time since its
 * own start; the answer stands for the middle of the round trip on rank
 * 0's clock, and of up to ALIGN_TRIES round trips (until one is shorter
 * than ALIGN_GOOD_NS) the shortest counts: a rank descheduled in between
 * makes a long one. A negative question ends a rank's turn. Only each
 * rank's own elapsed time is read: hosts' clocks need not agree. */
static long long start_offset(MPI_Comm comm, int rank, int size)
{
    long long offset = 0, *all = rank == 0 ? calloc((size_t)size, sizeof *all) : NULL;
    int ok = rank != 0 || all != NULL, all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) {
        free(all);
        return 0;
    }
    for (int r = 1; r < size && rank == 0; r++) {
        long long best_rtt = -1, e, stop = -1;
        for (int k = 0; k < ALIGN_TRIES && !(best_rtt >= 0 && best_rtt < ALIGN_GOOD_NS); k++) {
            long long a = elapsed_ns();
            PMPI_Send(&a, 1, MPI_LONG_LONG, r, TAG_ALIGN, comm);
            PMPI_Recv(&e, 1, MPI_LONG_LONG, r, TAG_ALIGN, comm, MPI_STATUS_IGNORE);
            long long b = elapsed_ns();
            if (best_rtt < 0 || b - a < best_rtt)
                best_rtt = b - a, all[r] = a + (b - a) / 2 - e;
        }
        PMPI_Send(&stop, 1, MPI_LONG_LONG, r, TAG_ALIGN, comm);
    }
    for (long long q = 0; rank != 0;) {
        PMPI_Recv(&q, 1, MPI_LONG_LONG, 0, TAG_ALIGN, comm, MPI_STATUS_IGNORE);
        if (q < 0)
            break;
        long long e = elapsed_ns();
        PMPI_Send(&e, 1, MPI_LONG_LONG, 0, TAG_ALIGN, comm);
    }
    PMPI_Scatter(all, 1, MPI_LONG_LONG, &offset, 1, MPI_LONG_LONG, 0, comm);
    free(all);
    return offset;
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

/* Every rank's start offset (start_offset) to rank 0. */
static void put_offsets(text *t, MPI_Comm comm, int rank, int size, long long offset)
{
    long long *all = rank == 0 ? malloc(sizeof *all * (size_t)size) : NULL;
    PMPI_Gather(&offset, 1, MPI_LONG_LONG, all, 1, MPI_LONG_LONG, 0, comm);
    for (int r = 0; all && r < size; r++)
        put(t, "offset %d %lld\n", r, all[r]);
    free(all);
}

/* Every rank's MPI_Pcontrol marks, as (ns, level) pairs, to rank 0, on
 * rank 0's time line (offset). */
static void put_phases(text *t, MPI_Comm comm, int rank, int size,
                       const timeline_phase_mark *phases, int nphases, long long offset)
{
    long long *mine = malloc(sizeof *mine * 2 * (size_t)(nphases + 1));
    int count = mine ? 2 * nphases : 0;
    for (int i = 0; i < nphases && mine; i++) {
        long long ns = (long long)phases[i].ns + offset;
        mine[2 * i] = ns > 0 ? ns : 0;
        mine[2 * i + 1] = phases[i].level;
    }
    int *counts = rank == 0 ? calloc((size_t)size, sizeof *counts) : NULL;
    int *displs = rank == 0 ? calloc((size_t)size, sizeof *displs) : NULL;
    PMPI_Gather(&count, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
    long long *all = NULL;
    if (rank == 0 && counts && displs) {
        int total = 0;
        for (int r = 0; r < size; r++)
            displs[r] = total, total += counts[r];
        all = malloc(sizeof *all * (size_t)(total + 1));
    }
    PMPI_Gatherv(mine, count, MPI_LONG_LONG, all, counts, displs, MPI_LONG_LONG, 0, comm);
    for (int r = 0; all && r < size; r++)
        for (int i = 0; i < counts[r]; i += 2)
            put(t, "phase %d %lld %lld\n", r, all[displs[r] + i], all[displs[r] + i + 1]);
    free(all), free(counts), free(displs), free(mine);
}

/* The marks each rank could not keep (its table holds TIMELINE_MAX_PHASES),
 * to rank 0: a line each in the member, and one line for the user. */
static void put_phases_dropped(text *t, MPI_Comm comm, int rank, int size, unsigned long long dropped)
{
    unsigned long long *all = rank == 0 ? calloc((size_t)size, sizeof *all) : NULL;
    PMPI_Gather(&dropped, 1, MPI_UNSIGNED_LONG_LONG, all, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
    unsigned long long sum = 0;
    int ranks = 0;
    for (int r = 0; all && r < size; r++)
        if (all[r]) {
            put(t, "phases_dropped %d %llu\n", r, all[r]);
            sum += all[r], ranks++;
        }
    if (sum)
        hprof_say("MPI_Pcontrol: %llu marks on %d of %d ranks not kept, past the first %d of a rank; "
                  "the time line's phases end at each rank's last kept mark", sum, ranks, size,
                  TIMELINE_MAX_PHASES);
    free(all);
}

/* n values, a run of zeros as 0*COUNT (most paths are idle most of the
 * time on most ranks). */
static void put_series(text *t, const uint64_t *v, uint32_t n)
{
    for (uint32_t b = 0; b < n;) {
        uint32_t z = 0;
        while (b + z < n && v[b + z] == 0)
            z++;
        if (z > 1)
            put(t, " 0*%u", z), b += z;
        else
            put(t, " %llu", (unsigned long long)v[b]), b++;
    }
}

/* The chosen paths' series of every rank, gathered to rank 0. */
static void put_paths(text *t, MPI_Comm comm, int rank, int size, const timeline_paths *tp,
                      uint32_t shift, uint32_t n, long long kshift)
{
    static const char *const fields[2] = { "mpi_ns", "comp_ns" };
    size_t cells = (size_t)tp->k * 2 * n;
    uint64_t *mine = path_series_rows(tp, shift, n);
    shift_buckets(mine, n, kshift, (size_t)tp->k * 2, n, 1);
    uint64_t *send = mine ? mine : calloc(cells + 1, sizeof *send);
    uint64_t *all = rank == 0 ? malloc(sizeof *all * (cells * (size_t)size + 1)) : NULL;
    unsigned long long spilled = tp->lp ? tp->lp->path_spilled[0] + tp->lp->path_spilled[1] : 0, spilled_all = 0;
    PMPI_Reduce(&spilled, &spilled_all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, comm);
    PMPI_Gather(send, (int)cells, MPI_UINT64_T, all, (int)cells, MPI_UINT64_T, 0, comm);
    free(send);
    if (rank == 0 && !all)
        t->failed = 1;
    if (rank != 0 || !all)
        return;
    put(t, "paths %d\n", tp->k);
    for (int k = 0; k < tp->k; k++)
        put(t, "path %d %d\n", k, tp->ids[k]);
    for (int k = 0; k < tp->k; k++)
        for (int r = 0; r < size; r++)
            for (int f = 0; f < 2; f++) {
                const uint64_t *v = all + (size_t)r * cells + ((size_t)k * 2 + (size_t)f) * n;
                put(t, "path_series %d %d %s", k, r, fields[f]);
                put_series(t, v, n);
                put(t, "\n");
            }
    put(t, "paths_spilled_ns %llu\n", spilled_all);
    free(all);
}

char *timeline_file_text(MPI_Comm comm, const hprof_timeline *mine,
                         const timeline_phase_mark *phases, int nphases,
                         unsigned long long phases_dropped,
                         const timeline_paths *paths, size_t *len)
{
    int rank, size;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    unsigned local[2] = { mine && mine->bucket ? mine->nbuckets : 0, mine ? mine->shift : 0 }, common[2];
    /* a path log folded past the histogram widens the whole timeline */
    if (paths && paths->k > 0 && paths->lp && paths->lp->path_shift > local[1])
        local[1] = paths->lp->path_shift;
    PMPI_Allreduce(local, common, 2, MPI_UNSIGNED, MPI_MAX, comm);
    if (common[0] == 0)
        return NULL;
    uint64_t *row = common_row(mine, common[0], common[1]);
    size_t cells = (size_t)common[0] * TL_NFIELDS;
    /* bucket 0 is rank 0's start on every rank, to the nearest bucket */
    long long offset = start_offset(comm, rank, size), width = 1ll << common[1];
    long long kshift = (offset >= 0 ? offset + width / 2 : offset - width / 2) / width;
    shift_buckets(row, common[0], kshift, TL_NFIELDS, 1, TL_NFIELDS);
    uint64_t *all = rank == 0 ? malloc(sizeof *all * cells * (size_t)size) : NULL;
    /* A rank without memory sends zeros rather than leave the others waiting. */
    uint64_t *send = row ? row : calloc(cells, sizeof *send);
    PMPI_Gather(send, (int)cells, MPI_UINT64_T, all, (int)cells, MPI_UINT64_T, 0, comm);
    free(send);
    text t = { 0 };
    if (rank == 0) {
        put(&t, "hprof-timeline 1\nwidth_ns %llu\nbuckets %u\nranks %d\n", 1ull << common[1],
            common[0], size);
        put(&t, "fields mpi_ns comp_ns visits bytes_sent bytes_received\n");
        if (all)
            put_rows(&t, all, size, common[0]);
        else
            t.failed = 1;
    }
    put_offsets(&t, comm, rank, size, offset);
    put_phases(&t, comm, rank, size, phases, nphases, offset);
    put_phases_dropped(&t, comm, rank, size, phases_dropped);
    if (paths && paths->k > 0)
        put_paths(&t, comm, rank, size, paths, common[1], common[0], kshift);
    free(all);
    if (rank != 0 || t.failed) {
        free(t.s);
        return NULL;
    }
    *len = t.len;
    return t.s;
}
