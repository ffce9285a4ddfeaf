/*
 * libunwind_walk.h - call paths with libunwind alone: the portable path,
 * and the fallback of the recipe walker (frames it cannot step, recipes not
 * learned yet, the self-check). unw_backtrace is libunwind's fast trace
 * (~140 ns at depth 14 here); stepping a cursor costs ~7.5 us
 * (shared/design.md), so the cursor is only the last resort.
 */
#ifndef HPROF_LIBUNWIND_WALK_H
#define HPROF_LIBUNWIND_WALK_H

#include <stdint.h>

/* How many frames can lie between the capture and the interrupted or
 * calling code: hprof's own, the signal trampoline. */
#define OWN_FRAMES_MAX 16

/* Return addresses above the MPI wrapper, leading frames in hprof's own
 * code skipped; 0 if the walk failed. */
int lu_mpi_path(uint64_t *ips, int max);
/* The interrupted pc of a signal context, then return addresses; 0 on
 * failure, and while this thread holds the loader's lock (core/loader_lock.h). */
int lu_signal_path(uint64_t *ips, int max, const void *ucontext);
/* The same by stepping a libunwind cursor from the context (0 while this
 * thread holds the loader's lock). */
int lu_step_from_context(uint64_t *ips, int max, const void *ucontext);
/* Return addresses from a call site on (x86_64): frame holds the rbp the
 * callee found, then the return address into its caller; by stepping a
 * cursor from the caller's registers at that return, so nothing between
 * here and the callee's entry is walked (the exact entry's trampoline has
 * no CFI: libunwind guesses from rbp there, and skips the caller or
 * fails). 0 on failure. */
int lu_call_site_path(uint64_t *ips, int max, const uint64_t *frame);

#endif
