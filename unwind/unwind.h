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

#define UNWIND_MAX_FRAMES 512

/* Fills ips[] with the return addresses of the frames above the MPI wrapper
 * that called into hprof: ips[0] is the MPI call site in the program,
 * ips[n-1] the outermost frame. The frames in hprof's own code (the
 * wrappers, the runtime: lib/own_code.h) are skipped, whatever the compiler
 * did to them (inlining, tail calls). Returns n >= 1, or 0 if the unwind
 * failed (no frame outside hprof, or the stack is deeper than max). */
int unwind_mpi_path(uint64_t *ips, int max);

/* The call path of an interrupted context (a signal's ucontext): ips[0] is
 * the interrupted instruction, ips[1..n-1] return addresses. Async-signal
 * safe once unwind_thread_init() ran on the thread. Returns n, or 0 if the
 * unwind failed. */
int unwind_signal_path(uint64_t *ips, int max, const void *ucontext);

/* Prepares this thread for unwinding from signal handlers (libunwind sets
 * up its per-thread cache on first use, which is not signal safe). */
void unwind_thread_init(void);

#endif
