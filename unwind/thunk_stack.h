/*
 * thunk_stack.h - the per-thread thunk stack on x86_64: where each walk
 * left a thunk (slot[i]), the original return address it stands for
 * (ra[i], read by the thunk code: thunks.h) and the tree node of the path
 * down to depth i (node[i]). frame_walk.c walks, walk_commit.c pushes;
 * this module sets a thread's stack up, decides once whether thunks are used, and puts
 * the originals back (thunk_stack_restore; restore.c does it for the
 * thread with its exactly measured calls: unwind_restore_thunks,
 * unwind_thread_end, unwind.h).
 * Restoring allocates nothing, takes no lock, and is async-signal-safe.
 */
#ifndef HPROF_THUNK_STACK_H
#define HPROF_THUNK_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "unwind/exact_stack_types.h"
#include "unwind/thunks.h"

/* A call site in the frame that made the latest MPI calls: the wrapper's
 * frame, its return address and saved rbp (compared only when the
 * caller's CFA is rbp-based: else rbp may be any register variable), and
 * the call site's node (unwind_mpi_cached). */
#define SITE_CACHE 16
struct site {
    const uint64_t *frame;
    uint64_t ra, bp;
    int need_bp;
    uint32_t node;
};

/* A call site's entry: one of the SITE_PROBE from its return address's
 * low bits on (call sites of one function lie a few bytes apart, at
 * instruction lengths that vary). */
#define SITE_PROBE 4
static inline unsigned site_index(uint64_t ra)
{
    return (unsigned)ra & (SITE_CACHE - 1);
}

static inline const struct site *site_find(const struct site *sites, uint64_t ra)
{
    for (unsigned k = 0, i = site_index(ra); k < SITE_PROBE; k++, i = (i + 1) & (SITE_CACHE - 1))
        if (sites[i].ra == ra)
            return &sites[i];
    return NULL;
}

struct py_thread;

#define RELEASED_SLOTS 16

/* The caller of a call site whose node is cached: its slot holds thunk
 * depth, whose node is still node (the same activation of the caller); or
 * the exit thunk of exact entry exact, with the same call site's node
 * (node) at the same depth (an activation in that slot, called from that
 * site: its path is the same). */
struct caller_mark {
    uint64_t *slot;
    int depth;
    uint32_t node;
    int exact; /* -1: a thunk */
};

/* A call site of an exactly measured call's entry (unwind_entry_site):
 * the trampoline's frame, its return address and saved rbp (compared
 * where the caller's CFA is rbp-based), its caller's activation, and the
 * call site's node. In sets of two by return address and frame. The
 * function last entered from it (fn, its id: lib/exact) and that
 * function's node under the site's (child; NULL: none yet), which the
 * entry's fast path fills: a site calls one function, most often. */
#define ENTRY_SITES 64
struct entry_site {
    const uint64_t *frame;
    uint64_t ra, bp;
    int need_bp;
    uint32_t node;
    struct caller_mark caller;
    uint32_t fn;
    struct cct_node *child;
};

typedef struct uw_thread {
    uint64_t stack_lo, stack_hi; /* the thread's stack; hi = 0: unknown */
    struct py_thread *py;        /* room for reading Python frames (py_runtime.h), or NULL */
    int thunks;                  /* this thread may patch */
    int unknown;                 /* thunks were dropped: the next walk cannot tell new
                                   * frames from old ones (no visits) */
    volatile int foreign;        /* something else walked the stack since the last MPI
                                   * call (maybe still does): samples do not patch */
    uint64_t stats[4];
    /* the frame that made the latest MPI calls, when a walk left a thunk
     * in it (unwind_mpi_cached): its slot, depth and node there; and its
     * call sites met since (up to SITE_CACHE) */
    uint64_t *caller_slot;
    int caller_depth;
    uint32_t caller_node;
    /* or, when the caller is an exactly measured call (its slot holds the
     * exit thunk, exact_stack.h): its entry (caller_node: its call site's
     * node), -1: a thunk */
    int caller_exact;
    struct site sites[SITE_CACHE];
    /* the thunks' table: epoch, top, then ra[] (thunk code reads ra[i],
     * writes top and counts epoch: every change to the thunks does) */
    uint64_t epoch;
    int64_t top;
    uint64_t ra[THUNK_COUNT];
    uint64_t *slot[THUNK_COUNT];
    uint32_t node[THUNK_COUNT];
    exact_stack ex;                        /* the exactly measured calls under way (exact_stack.h) */
    struct entry_site esites[ENTRY_SITES]; /* sets of two (entry_cache.h) */
    int esite_victim;                      /* the way of a full set the next one replaces */
    /* slots whose thunk was taken back while their frame lived on (a
     * stack switched away from): thunk_stack_released */
    uint64_t *released[RELEASED_SLOTS];
    unsigned nreleased, released_next;
} uw_thread;

/* This thread's state; NULL before its first walk and after it ended. */
extern __thread uw_thread *uw_self __attribute__((tls_model("initial-exec"), visibility("hidden")));

/* Decided once, at the first thread's set-up (test knobs, config.c). */
extern int uw_check_mode; /* HPROFTEST_UNWIND_CHECK=1: unwind_check.h; -1 before */
extern int uw_plain_mode; /* HPROFTEST_UNWIND=libunwind: every walk with libunwind (bench/run.py) */

/* A CET shadow stack checks every return: no return address may be replaced. */
int uw_shadow_stack_active(void);

/* No thunks for any thread, before the first walk (the program reads the
 * return addresses they would replace: lib/lifecycle/return_readers.h). 1 when they
 * were to be used, 0 when they were off already. */
int uw_thunks_forbid(void);

/* The calling thread's state, made on first use (mmap; not from a signal
 * handler, which reads uw_self instead). NULL if it cannot be made. */
uw_thread *thunk_stack_create(void);

static inline uw_thread *thunk_stack_get(void)
{
    uw_thread *st = uw_self;
    return st ? st : thunk_stack_create();
}

static inline uint64_t thunk_addr(int i)
{
    return (uint64_t)(uintptr_t)hprof_thunks_start + (uint64_t)i * THUNK_SIZE;
}

/* -1: not a thunk; -2: inside the thunk code but not at a thunk's start */
static inline int thunk_index(uint64_t v)
{
    uint64_t off = v - (uint64_t)(uintptr_t)hprof_thunks_start;
    if (off >= (uint64_t)THUNK_COUNT * THUNK_SIZE)
        return -1;
    if (off % THUNK_SIZE)
        return -2;
    return (int)(off / THUNK_SIZE);
}

static inline uint64_t current_sp(void)
{
    uint64_t sp;
    __asm__ volatile("movq %%rsp, %0" : "=r"(sp));
    return sp;
}

/* The slot s got its return address back while its frame may live on
 * (on a part of the stack switched away from, or anywhere after a
 * restore): a later walk that meets it there finds the frame not new
 * (walk_commit.c). The newest RELEASED_SLOTS, each slot once. */
static inline void thunk_stack_released(uw_thread *st, uint64_t *s)
{
    for (unsigned i = 0; st->nreleased && i < RELEASED_SLOTS; i++)
        if (st->released[i] == s)
            return;
    uint64_t **r = &st->released[st->released_next];
    st->nreleased += *r == NULL;
    *r = s;
    st->released_next = (st->released_next + 1) % RELEASED_SLOTS;
}

/* Puts every original return address back that is still live (its slot
 * on this thread's stack still holding its thunk, above the current sp
 * or below it in a frame switched away from). */
void thunk_stack_restore(uw_thread *st);

#endif
