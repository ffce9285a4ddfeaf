/*
 * timeline.h - the profile over time: per thread, a folding time histogram
 * of fixed size (Paradyn's answer to "when?"). HPROF_TIME_BUCKETS buckets
 * from the measurement's start (MPI_Init's entry), each a power-of-two
 * number of nanoseconds wide; when the run outgrows them, neighbouring
 * buckets are merged and the width doubles, so memory stays constant
 * however long the run. Per bucket: MPI time, computation time (weighted
 * samples), MPI calls, bytes sent and received. Intervals that span
 * buckets are split across them, so each field's sum is the thread's
 * total in the profile.
 *
 * Only the owning thread writes its buckets (the wrappers, and the sampler's
 * handler, which never interrupts a wrapper's bookkeeping: samples inside
 * MPI are not counted), so nothing here locks, allocates or makes a system
 * call after timeline_init. MPI_Pcontrol(level) marks are kept per process
 * in a fixed table (timeline_phase).
 */
#ifndef HPROF_TIMELINE_H
#define HPROF_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

enum timeline_field {
    TL_MPI_NS,
    TL_COMP_NS,
    TL_VISITS,
    TL_BYTES_SENT,
    TL_BYTES_RECEIVED,
    TL_NFIELDS
};

#define TIMELINE_FIRST_SHIFT 20 /* buckets start 2^20 ns (~1 ms) wide */
#define TIMELINE_MAX_PHASES 1024

typedef struct hprof_timeline {
    uint64_t (*bucket)[TL_NFIELDS]; /* nbuckets rows; NULL: off */
    uint32_t nbuckets;
    uint32_t shift; /* bucket width = 2^shift ns */
    /* The bucket the latest call fell in, so that the next one finds it
     * with one range check: its start since the origin, its width (0:
     * none; a fold clears it, the rows having moved) and its index. */
    uint64_t cur_start, cur_width;
    uint32_t cur;
} hprof_timeline;

typedef struct timeline_phase_mark {
    uint64_t ns; /* since the origin */
    int level;
} timeline_phase_mark;

/* The common origin of every thread's histogram (MPI_Init's entry). */
void timeline_set_origin(uint64_t origin_ns);
uint64_t timeline_origin(void);

/* nbuckets == 0 turns the thread's histogram off. Returns 0 or -1 (no memory:
 * off). */
int timeline_init(hprof_timeline *tl, uint32_t nbuckets);
void timeline_free(hprof_timeline *tl);

/* Adds dur_ns of `field` time ending at end_ns (hprof_now_ns), split over the
 * buckets it spans; timeline_add_count adds a count at `at_ns`. */
void timeline_add_span(hprof_timeline *tl, int field, uint64_t end_ns, uint64_t dur_ns);
void timeline_add_count(hprof_timeline *tl, int field, uint64_t at_ns, uint64_t n);
/* An MPI call ending at end_ns: its time as timeline_add_span(TL_MPI_NS),
 * one visit and its bytes at end_ns, with one bucket lookup (the wrappers'
 * hot path). Returns the call's bucket when it lies within one (the path
 * log's fast path, path_log.h), else UINT32_MAX. */
static inline uint32_t timeline_add_call(hprof_timeline *tl, uint64_t end_ns, uint64_t dur_ns, uint64_t sent,
                                         uint64_t received);

/* Folds tl until its width is 2^shift (no-op if already as wide). */
void timeline_fold_to(hprof_timeline *tl, uint32_t shift);
/* Adds src's buckets into dst (dst->shift >= src->shift), leaving src as it
 * is: src may be another thread's, still counting. */
void timeline_add_into(hprof_timeline *dst, const hprof_timeline *src);

/* MPI_Pcontrol(level) at now_ns: recorded while the table has room
 * (lock-free: a slot is taken with an atomic increment). */
void timeline_phase(int level, uint64_t now_ns);
int timeline_phases(const timeline_phase_mark **marks); /* count, marks in call order */
/* Marks past the table's TIMELINE_MAX_PHASES, not kept (the merge says so). */
uint64_t timeline_phases_dropped(void);

/* timeline_add_call's cases other than a call inside the latest call's
 * bucket (another bucket, folding, spans); a call inside one bucket makes
 * it the current one. */
uint32_t timeline_add_call_slow(hprof_timeline *tl, uint64_t end_ns, uint64_t dur_ns, uint64_t sent,
                                uint64_t received);
extern uint64_t timeline_origin_ns __attribute__((visibility("hidden")));

/* The row of the latest call's bucket (tl->cur) when dur_ns ending at
 * end_ns lies wholly inside it, else NULL (another bucket, a span over
 * several, the histogram off or just folded). */
static inline uint64_t *timeline_current_row(const hprof_timeline *tl, uint64_t end_ns, uint64_t dur_ns)
{
    uint64_t in = end_ns - timeline_origin_ns - tl->cur_start; /* wraps when before the bucket */
    if (__builtin_expect(in >= tl->cur_width || dur_ns > in, 0))
        return NULL;
    return tl->bucket[tl->cur];
}

/* An MPI call's visit, bytes and time on a row timeline_current_row gave. */
static inline void timeline_row_add_call(uint64_t *row, uint64_t dur_ns, uint64_t sent, uint64_t received)
{
    row[TL_VISITS]++;
    row[TL_BYTES_SENT] += sent;
    row[TL_BYTES_RECEIVED] += received;
    row[TL_MPI_NS] += dur_ns;
}

static inline uint32_t timeline_add_call(hprof_timeline *tl, uint64_t end_ns, uint64_t dur_ns, uint64_t sent,
                                         uint64_t received)
{
    uint64_t *row = timeline_current_row(tl, end_ns, dur_ns);
    if (__builtin_expect(!row, 0))
        return timeline_add_call_slow(tl, end_ns, dur_ns, sent, received);
    timeline_row_add_call(row, dur_ns, sent, received);
    return tl->cur;
}

#endif
