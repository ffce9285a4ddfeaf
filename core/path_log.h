/*
 * path_log.h - the call paths over time: per thread, a log of
 * (bucket, call-tree node, MPI ns, computation ns), one entry per node
 * and bucket that got time, beside the time histogram (timeline.h) and at
 * its bucket width. Which paths are the heaviest is known only at
 * finalize (over all ranks), so every node's time is logged; the merge
 * then keeps the series of the top HPROF_TIME_PATHS paths.
 *
 * Memory is fixed when the thread starts: PATH_LOG_PER_BUCKET entries per
 * histogram bucket (24 bytes each, plus 8 for the folding index), pages
 * committed as they fill. When the log is full, its buckets are merged in
 * pairs (folded, as the histogram is; entries of one node in the merged
 * bucket become one); past PATH_LOG_MAX_EXTRA folds beyond the
 * histogram's width, time that finds no entry is counted as spilled
 * (attributed to no path) instead.
 *
 * Written only by the owning thread (the wrappers, and the sampling
 * handler, which never interrupts a wrapper's bookkeeping), so nothing
 * here locks or allocates after path_log_init. A recent (node, bucket) is
 * found through a small direct-mapped cache: the common case is one
 * compare and an add.
 */
#ifndef HPROF_PATH_LOG_H
#define HPROF_PATH_LOG_H

#include <stddef.h>
#include <stdint.h>

#define PATH_LOG_PER_BUCKET 64
#define PATH_LOG_MAX_EXTRA 4 /* folds beyond the histogram's width */
#define PATH_LOG_CACHE 64    /* direct-mapped (node -> entry) slots */
#define PATH_LOG_SLOT(node) (((node) ^ ((node) >> 6)) & (PATH_LOG_CACHE - 1))

enum path_field {
    PL_MPI,
    PL_COMP,
    PL_NFIELDS
};

typedef struct path_entry {
    uint32_t bucket, node;
    uint64_t ns[PL_NFIELDS];
} path_entry;

typedef struct hprof_path_log {
    path_entry *e; /* NULL: off */
    uint32_t n, cap;
    uint32_t shift;      /* bucket width = 2^shift ns, >= the histogram's */
    uint32_t max_bucket; /* the histogram's bucket count */
    uint32_t *index;     /* folding: open addressing over (bucket, node) */
    uint32_t index_mask;
    uint32_t cache[PATH_LOG_CACHE]; /* entry + 1 of a recent (node, bucket), 0: none */
    uint64_t spilled[PL_NFIELDS];   /* ns that found no room */
} hprof_path_log;

/* nbuckets: the histogram's; 0 turns the log off. 0, or -1 (no memory: off). */
int path_log_init(hprof_path_log *l, uint32_t nbuckets);
void path_log_free(hprof_path_log *l);

/* dur_ns of `field` time on `node`, ending at end_ns (hprof_now_ns), split
 * over the buckets it spans. hist_shift: the thread's histogram's width
 * now (the log is never finer). */
void path_log_add(hprof_path_log *l, uint32_t hist_shift, int field, uint32_t node, uint64_t end_ns,
                  uint64_t dur_ns);

/* The entry of a recent (node, bucket), else NULL (not recent, or the log
 * off: its cache is empty then). */
static inline path_entry *path_log_cached(const hprof_path_log *l, uint32_t hist_shift, uint32_t bucket,
                                          uint32_t node)
{
    uint32_t i = l->cache[PATH_LOG_SLOT(node)];
    if (i && l->shift == hist_shift && l->e[i - 1].bucket == bucket && l->e[i - 1].node == node)
        return &l->e[i - 1];
    return NULL;
}

/* path_log_add for time known to lie in the histogram's bucket `bucket`
 * (UINT32_MAX: not known): a recent (node, bucket) takes one compare and
 * an add, inline (the wrappers' hot path). */
static inline void path_log_add_in(hprof_path_log *l, uint32_t hist_shift, uint32_t bucket, int field,
                                   uint32_t node, uint64_t end_ns, uint64_t dur_ns)
{
    path_entry *e = path_log_cached(l, hist_shift, bucket, node);
    if (e)
        e->ns[field] += dur_ns;
    else if (l->e)
        path_log_add(l, hist_shift, field, node, end_ns, dur_ns);
}

/* Adds src's entries into dst, node ids through map (src node -> dst
 * node): an ended thread's log into the location it is merged into. */
void path_log_add_into(hprof_path_log *dst, const hprof_path_log *src, const uint32_t *map);

#endif
