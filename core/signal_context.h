/*
 * signal_context.h - whether the calling thread may be running a signal
 * handler, for code that must not allocate or wait there but can leave a
 * rare case undone (registering a thread hprof meets first at an exact
 * entry). Async-signal-safe.
 */
#ifndef HPROF_SIGNAL_CONTEXT_H
#define HPROF_SIGNAL_CONTEXT_H

#include <stdint.h>

/* 1 when some signal is blocked (a handler runs with its own signal
 * blocked, unless installed with SA_NODEFER and an empty mask) or when
 * return_address (a function's, read at its entry; 0: none) is the
 * kernel's signal return trampoline (the function is a handler itself). */
int signal_context_maybe(uint64_t return_address);

#endif
