/*
 * exact_stack.h - the activations of functions measured exactly (lib/exact/)
 * on one thread, and their return through hprof's exit thunk (x86_64).
 *
 * The entry of a measured function (lib/exact/exact_entry.c) pushes an
 * entry here and replaces the return address in the function's slot (the
 * word its caller's call pushed) by the exit thunk, hprof_exact_exit
 * (exact_stack.c), keeping the original: the same return-address
 * replacement the thunk stack does for unwound frames (thunk_stack.h), with
 * one exit for every depth, so recursion is only bounded by the stack's
 * capacity. The function returns into the exit thunk, which pops its entry,
 * adds the call's time to its call-tree node and jumps to the original
 * return address.
 *
 * Entries are ordered by slot: a newer activation's slot lies below an
 * older one's on the same stack. Whatever left an activation without its
 * return (longjmp, a C++ exception, thread exit, a context switch) is found
 * by its slot: an entry whose slot lies at or below the slot of a new entry
 * (or of the one that returns) on the thread's own stack is gone; it is
 * closed then, at that time. longjmp and exception catches close theirs at
 * the jump (lib/interpose/unwinders.c). A frame taken for gone by the
 * slots' order may live on, its slot still holding the exit thunk (a
 * coroutine whose stack lies on the thread's own, switched away from and
 * back by code hprof does not see): the last EXACT_ORPHANS such slots keep
 * their return addresses, so that a return through one still goes back
 * (its call was closed already). Anything that walks the stack
 * itself gets the original return addresses back first (disarm, as the
 * thunks do), and they are put back where the frame is still there
 * (rearm).
 *
 * A call's time: inclusive, entry to exit; and self: inclusive minus the
 * time of the exact calls it made (MPI calls inside it stay in it: their
 * own time is measured as MPI time).
 *
 * Everything here allocates nothing, takes no lock, and is
 * async-signal-safe: a sample never interrupts it (it runs in hprof's own
 * code, where the sampler records nothing), and a program's signal handler
 * that calls a measured function while it runs finds the stack busy and
 * is not measured. exact_stack.c is compiled with -mgeneral-regs-only: the
 * exit keeps the function's return values (rax, rdx, xmm0, xmm1, x87).
 */
#ifndef HPROF_EXACT_STACK_H
#define HPROF_EXACT_STACK_H

#include <stdint.h>

#include "core/cct.h"
#include "core/clock.h"
#include "unwind/exact_stack_types.h"

/* The exit thunk, and the way into a measured body that returns to it
 * (exact_stack.c; the entry trampoline jumps there). */
extern const char hprof_exact_exit[] __attribute__((visibility("hidden")));
extern const char hprof_exact_body[] __attribute__((visibility("hidden")));

static inline uint64_t exact_exit_addr(void)
{
    return (uint64_t)(uintptr_t)hprof_exact_exit;
}

/* An entry's time: a stamp of the clock (core/clock.h: the TSC's count
 * once calibrated, else nanoseconds), converted once, at its close, as the
 * span from its entry. The kind does not change while calls are counted:
 * the clock is calibrated before the measurement's window opens. */
static inline uint64_t exact_stamp_now(void)
{
    return hprof_stamp_read(hprof_stamp_kind());
}

/* Calls are counted while this is set (the measurement's window); after
 * it, entries still pop and return, and add nothing. */
extern volatile int exact_stack_recording __attribute__((visibility("hidden")));

/* The calling thread's stack, its entries mapped (not from a signal
 * handler). NULL when no memory could be had. */
exact_stack *exact_stack_mine(void);
/* The calling thread's stack as it is (signal handlers; NULL: none). */
exact_stack *exact_stack_peek(void);

/* A new activation whose return-address slot is slot, counted on node,
 * entered at the stamp now: entries gone by its slot are closed then
 * first; the slot gets the exit thunk. 0, or -1 when the stack is full
 * (the call runs unmeasured). */
int exact_stack_push(exact_stack *x, uint64_t *slot, cct_node *node, uint32_t fn, uint64_t now, uint32_t site,
                     int depth);

/* Whether the same may be done inline (entry_site_push, entry_cache.h):
 * nothing is to be closed, there is room, and the slot holds a return
 * address (the entry's fast path: no call, no spilled registers). */
static inline int exact_stack_push_plain(const exact_stack *x, const uint64_t *slot)
{
    uint32_t top = x->top;
    return !(top > 0 && (uint64_t)(uintptr_t)x->e[top - 1].slot <= (uint64_t)(uintptr_t)slot) &&
           top != x->cap && *slot != exact_exit_addr();
}

/* The exit thunk's work: sp is the stack pointer after the return (the
 * slot + 8). Pops and counts the activation, returns its return address. */
uint64_t exact_stack_leave(uint64_t sp);

/* The return address an armed slot stands for (walks that read the exit
 * thunk from a slot), or 0 when neither an entry nor an orphan holds that
 * slot. */
uint64_t exact_stack_translate(const exact_stack *x, const uint64_t *slot);

/* The armed entry whose slot is slot, or -1; the same among the entries
 * below index below (a walk goes outwards: each exact call it passes lies
 * below the one before). */
int exact_stack_index(const exact_stack *x, const uint64_t *slot);
int exact_stack_index_below(const exact_stack *x, const uint64_t *slot, int below);

/* Closes, at the stamp now (exact_stamp_now), every entry whose frame
 * lies below sp on the thread's stack (the target of a longjmp, a frame
 * that catches an exception). */
void exact_stack_unwind_to(exact_stack *x, uint64_t sp, uint64_t now);

/* Original return addresses back in every armed slot still live above sp
 * (before a foreign walk or a stack switch); and the exit thunk back in
 * those still holding them and live above sp (after the walk). */
void exact_stack_disarm(exact_stack *x, uint64_t sp);
void exact_stack_rearm(exact_stack *x, uint64_t sp);
/* The same around hprof's own libunwind walks (which return before
 * anything else runs on the thread): only what they disarmed is rearmed,
 * never what a program's walk (an exception under way) had disarmed. */
void exact_stack_disarm_own(exact_stack *x, uint64_t sp);
void exact_stack_rearm_own(exact_stack *x);

/* Closes every entry at now_ns, in nanoseconds of the clock (the thread
 * ends, or the window closes: their returns come later and count
 * nothing). Disarms them when disarm is set. */
void exact_stack_close_all(exact_stack *x, uint64_t now_ns, uint64_t sp, int disarm);

/* The thread's stack goes (unwind_thread_end): its entries must be closed. */
void exact_stack_free(exact_stack *x);

/* Code hprof put into the program: the blocks of entry stubs
 * (lib/exact/exact_patch.h) and the patched jumps that reach them. A
 * sample there is in hprof's own code, as in the trampolines. Adding
 * (at most EXACT_CODE_BLOCKS blocks) is not for signal handlers;
 * exact_code_at is async-signal-safe. */
#define EXACT_CODE_BLOCKS 256
int exact_code_add(uint64_t lo, uint64_t hi);
int exact_code_at(uint64_t pc);

#endif
