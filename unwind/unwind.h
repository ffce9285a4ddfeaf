/*
 * unwind.h - call-path capture.
 *
 * The interface the rest of hprof uses to learn "how did we get here": it
 * returns raw return addresses, innermost first. Turning them into regions
 * and call sites happens once per address at finalize, never here. A faster
 * backend (cached frame recipes, thunk stack) can replace the implementation
 * behind this header without touching its callers.
 */
#ifndef HPROF_UNWIND_H
#define HPROF_UNWIND_H

#include <stdint.h>

#include "core/cct.h"

#define UNWIND_MAX_FRAMES 512

/* Fills ips[] with the return addresses of the frames above the MPI wrapper
 * that called into hprof: ips[0] is the MPI call site in the program,
 * ips[n-1] the outermost frame. The frames in hprof's own code (the
 * wrappers, the runtime: core/own_code.h) are skipped, whatever the compiler
 * did to them (inlining, tail calls). Returns n >= 1, or 0 if the unwind
 * failed (no frame outside hprof, or the stack is deeper than max). */
int unwind_mpi_path(uint64_t *ips, int max);

/* The call path of an interrupted context (a signal's ucontext): ips[0] is
 * the interrupted instruction, ips[1..n-1] return addresses. Async-signal
 * safe once unwind_thread_init() ran on the thread. Returns n, or 0 if the
 * unwind failed. */
int unwind_signal_path(uint64_t *ips, int max, const void *ucontext);

/* The node in tree (the calling thread's) of the frame that made the
 * current MPI call (the call site ips[0] above), created as needed; the
 * walk starts at the caller of wrapper_frame (the wrapper's frame pointer,
 * or NULL: from here, through hprof's own frames); the
 * caller adds the MPI function's leaf under it. CCT_NONE when the tree is
 * full. When the unwind fails, *failed is set and the node lies under the
 * root's (unwind failed) child, with the frames that were known (innermost
 * last). On x86_64 this is where the thunk stack works: the walk stops at
 * the first frame not returned from since the last walk, patches the new
 * ones, and counts their visits (CCT_VISITS of their nodes). */
uint32_t unwind_mpi_node(cct *tree, const void *wrapper_frame, int *failed);
/* The same from a signal handler that interrupted the MPI call of that
 * wrapper frame on this thread, with the recipes already learned only:
 * the MPI library may hold the loader's lock there, which learning and
 * libunwind take. CCT_NONE (and *failed) where they would be needed. */
uint32_t unwind_mpi_node_in_handler(cct *tree, const void *wrapper_frame, int *failed);

/* The node of the call site (as unwind_mpi_node would return it) when the
 * calling thread made an MPI call from this call site and wrapper frame
 * (same address, return address, and saved rbp where it matters) before,
 * and the frame that made the call still holds the thunk a walk left in
 * it: no frame was entered or left there since, the path is unchanged.
 * A few call sites of the latest calling frame are kept. CCT_NONE
 * otherwise, and always without thunks. Allocates nothing, no lock.
 * Inline for the MPI wrappers' end: mpi_site_cached (mpi_site_cache.h). */
uint32_t unwind_mpi_cached(const void *wrapper_frame);

/* The same for the entry of an exactly measured function (lib/exact/):
 * frame is the trampoline's frame (saved rbp, then the function's return
 * address), and *depth the call site's frame's depth in the thunk stack
 * (-1: not known), which the exact call's entry keeps so that later walks
 * stop at its slot (unwind/exact_stack.h) as at a thunk. Their call sites
 * are kept apart from the MPI calls' (64 a thread, each with the caller's
 * activation it holds for), so a chain of exact calls (run -> work ->
 * inner -> ...) finds each of them again: unwind_entry_site
 * (unwind/entry_cache.h, inline for the entry's fast path). may_learn 0:
 * the entry may run in a signal handler (core/signal_context.h), whose
 * thread may hold malloc's lock: recipes not yet learned go to the
 * learner thread, and the walk falls back to libunwind meanwhile, as a
 * sample's does. */
uint32_t unwind_entry_node(cct *tree, const void *frame, int *failed, int *depth, int may_learn);

/* A promise about the caller of an MPI wrapper, taken right after
 * unwind_mpi_cached(frame) found its call site: while it holds, the
 * caller's activation is still the one that was vouched for (no thunked
 * frame of this thread returned and no walk changed its thunks since, and
 * the caller's return slot still holds its thunk). Checked in four loads,
 * for polling loops (lib/polls/poll_run.h). Never holds without thunks. */
typedef struct unwind_token {
    const uint64_t *epoch_at; /* NULL: holds nothing */
    uint64_t epoch;
    const uint64_t *slot;
    uint64_t thunk;
} unwind_token;
void unwind_token_take(unwind_token *tok);
/* Whether the call site unwind_mpi_cached found for frame is told apart
 * by the caller's saved rbp too (its CFA is rbp-based there). */
int unwind_site_needs_bp(const void *wrapper_frame);
static inline int unwind_token_holds(const unwind_token *tok)
{
    return tok->epoch_at && __atomic_load_n(tok->epoch_at, __ATOMIC_RELAXED) == tok->epoch &&
           __atomic_load_n(tok->slot, __ATOMIC_RELAXED) == tok->thunk;
}

/* Same for a signal's interrupted context: the leaf key is pc+1. Sets
 * *inside (and returns CCT_NONE) when the pc or any frame is hprof's own
 * code. Async-signal safe; never grows the tree (CCT_NONE when full). */
uint32_t unwind_signal_node(cct *tree, const void *ucontext, int *failed, int *inside);

/* Puts back every return address the thunk stack redirected on this
 * thread (before anything else walks or switches the stack). Async-signal
 * safe; a no-op without thunks. */
void unwind_restore_thunks(void);

/* Prepares this thread for unwinding from signal handlers (libunwind sets
 * up its per-thread cache on first use, which is not signal safe). */
void unwind_thread_init(void);

/* The calling thread ends: the return addresses the thunk stack redirected
 * are put back and its unwinding state is freed (its next walk, if any,
 * starts afresh). Not from signal handlers. */
void unwind_thread_end(void);

/* Once per process when sampling starts: recipes that samples miss are
 * then learned in the background (unwind/learner.h), not only at the
 * thread's next MPI call. */
void unwind_process_start(void);

#endif
