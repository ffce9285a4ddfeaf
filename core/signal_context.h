/*
 * signal_context.h - whether the calling thread may be running a signal
 * handler, for code that must not allocate or wait there but can leave a
 * rare case undone (registering a thread hprof meets first at an exact
 * entry, learning an unwinding recipe there). Async-signal-safe.
 */
#ifndef HPROF_SIGNAL_CONTEXT_H
#define HPROF_SIGNAL_CONTEXT_H

#include <stdint.h>

/* The calling thread's measurement begins outside any handler: the signals
 * it blocks now are its usual ones, which alone say nothing of a handler
 * (a launcher's blocked mask that the program inherits: perf's SIGWINCH,
 * what MPICH's hydra passes on from its parent). */
void signal_context_thread_begins(void);

/* 1 when a signal not among the thread's usual ones is blocked (a handler
 * runs with its own signal blocked, unless installed with SA_NODEFER and
 * an empty mask) or when return_address (a function's, read at its entry;
 * 0: none) is the kernel's signal return trampoline (the function is a
 * handler itself). A usual signal found unblocked is usual no longer. A
 * thread whose measurement began elsewhere has none. */
int signal_context_maybe(uint64_t return_address);

#endif
