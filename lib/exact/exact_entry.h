/*
 * exact_entry.h - what runs at the entry of a function measured exactly.
 *
 * A patched function (exact_patch.h) jumps to its stub, which puts the
 * function's id in r11 and jumps to hprof_exact_entry (x86_64 assembly in
 * exact_entry.c). The trampoline pushes rbp, making a frame like an MPI
 * wrapper's (saved rbp, then the caller's return address), saves the
 * argument registers and calls the fast path: when
 * this thread's unwinder still knows the call site (unwind_entry_site: the
 * same frame, nothing entered or left in the caller since) and the
 * function's node under it was met before (kept in the site's entry), the call is counted on that
 * node, its activation pushed (exact_stack.h: the return address becomes
 * the exit thunk) - general registers only, no call outside hprof, no
 * clock but the time stamp counter. Otherwise the slow path saves every
 * vector register too (xsave: it may walk the stack, learn a recipe,
 * allocate), finds the call path by a walk, as an MPI call's, and the
 * function's node under it. Either way the trampoline restores the
 * registers and jumps into the function's body, after the patched jump
 * (a measured call through hprof_exact_body, exact_stack.h).
 *
 * A call is not measured (it runs as if unpatched) while the function is
 * not selected, outside the measurement's window, inside an MPI call
 * (a user-defined reduction, a callback: its time is the MPI call's),
 * inside hprof's own work on the thread (a signal handler's call), on a
 * stack other than the thread's own (sigaltstack, coroutines), or when
 * the thread's stack of exact calls is full.
 */
#ifndef HPROF_EXACT_ENTRY_H
#define HPROF_EXACT_ENTRY_H

#include <stdint.h>

/* Per function id (exact.c numbers every patchable entry it finds). */
typedef struct exact_fn {
    uint64_t resume; /* the body: after the jump at the entry */
    uint64_t key;    /* its call-tree key: the function's address + 1 */
    volatile int on; /* calls are measured; 0: they pass through */
} exact_fn;

#define EXACT_FN_CHUNK 4096
#define EXACT_FN_CHUNKS 1024
extern exact_fn *exact_fn_chunks[EXACT_FN_CHUNKS] __attribute__((visibility("hidden")));

static inline exact_fn *exact_fn_at(uint32_t id)
{
    return &exact_fn_chunks[id / EXACT_FN_CHUNK][id % EXACT_FN_CHUNK];
}

/* Room for ids [first, first + n): 0, or -1 (out of ids or memory). */
int exact_fn_reserve(uint32_t first, int n);

/* The trampoline every stub jumps to. */
extern const char hprof_exact_entry[] __attribute__((visibility("hidden")));

/* Once, before the first patch: how the slow path saves vector state. */
void exact_entry_init(void);

/* The trampoline's halves (called from its assembly only). fast: the
 * address to go on at, or 0 for the slow path; either with
 * EXACT_EXIT_SET added where the call's return now goes through the exit
 * thunk (the trampoline then enters the body through hprof_exact_body). */
#define EXACT_EXIT_SET (1ull << 63)
uint64_t hprof_exact_enter_fast(uint32_t id, uint64_t *frame);
uint64_t hprof_exact_enter_slow(uint32_t id, uint64_t *frame);

#endif
