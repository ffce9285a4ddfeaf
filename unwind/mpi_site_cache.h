/*
 * mpi_site_cache.h - unwind_mpi_cached (unwind.h) inline, for the MPI
 * wrappers' end (lib/measure.c): a call repeated from a call site the
 * thread still knows finds that site's node here with no call out of the
 * wrapper's bookkeeping. The sites are those call_site_cache.c keeps in
 * the thread's uw_thread (thunk_stack.h). Allocates nothing, takes no
 * lock. Without thunks (other architectures) nothing is ever known here.
 */
#ifndef HPROF_MPI_SITE_CACHE_H
#define HPROF_MPI_SITE_CACHE_H

#include <stdint.h>

#include "core/cct.h"

#if defined(__x86_64__)
#include "unwind/entry_cache.h"
#include "unwind/thunk_stack.h"

/* The slot holds thunk d only if it was redirected during the caller's
 * current activation (a call writes a raw return address there, and a
 * return through the thunk sets top to d): the caller's frame is the one
 * walked, and node[d] is still its path's node when no later walk
 * redirected another slot at depth d. */
static inline __attribute__((always_inline)) uint32_t mpi_site_cached(const void *wrapper_frame)
{
    const uw_thread *st = uw_self;
    const uint64_t *f = wrapper_frame;
    if (!st || !f || !st->caller_slot)
        return CCT_NONE;
    const struct site *c = site_find(st->sites, f[1]);
    if (!c || c->frame != f || (c->need_bp && c->bp != f[0]))
        return CCT_NONE;
    struct caller_mark m = { st->caller_slot, st->caller_depth, st->caller_node, st->caller_exact };
    return caller_holds(st, &m) ? c->node : CCT_NONE;
}
#else
static inline __attribute__((always_inline)) uint32_t mpi_site_cached(const void *wrapper_frame)
{
    (void)wrapper_frame;
    return CCT_NONE; /* no thunks: nothing tells an unchanged path */
}
#endif

#endif
