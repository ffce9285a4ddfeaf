/*
 * call_site_cache.h - the call sites a walk found, kept so that the next
 * call from the same site in the same caller frame needs no walk: MPI
 * calls' sites (struct site, thunk_stack.h; read by mpi_site_cache.h) and
 * exact entries' (struct entry_site; read by entry_cache.h).
 */
#ifndef HPROF_CALL_SITE_CACHE_H
#define HPROF_CALL_SITE_CACHE_H

#if defined(__x86_64__)
#include <stdint.h>

#include "unwind/frame_walk.h"

/* The wrapper's caller, from the wrapper's frame pointer (saved rbp at
 * frame[0], return address at frame[1]): where an MPI call's walk starts
 * without stepping through hprof's own frames; *r its state. NULL (walk
 * from here) when the frame is not plausible or its caller is hprof's own
 * code. */
uint64_t *call_site_caller_of_wrapper(const uw_thread *st, const void *frame, regs *r);

/* After an MPI walk from the wrapper's frame that committed (node: the
 * call site's): remember where the caller's return address is and which
 * thunk it holds, and the call site, so that a later call from this site
 * in the same frame can tell its path is unchanged. */
void call_site_remember_mpi(uw_thread *st, const walk *w, const uint64_t *frame, uint32_t node);

/* The same after an exact entry's walk from its trampoline's frame. */
void call_site_remember_entry(uw_thread *st, const walk *w, const uint64_t *frame, uint32_t node);

#endif
#endif
