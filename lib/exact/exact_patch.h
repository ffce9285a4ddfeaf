/*
 * exact_patch.h - turning a function's NOP area (exact_sites.h) into a
 * jump to hprof's entry trampoline and back, while other threads run it.
 *
 *   unpatched   stub_jmp_at: 5 NOP bytes     jmp_at: 90 90 (or 66 90)
 *   patched     stub_jmp_at: e9 <stub>       jmp_at: eb f9 (jmp stub_jmp_at)
 *
 * with eb f5 after an endbr64. The stub (16 bytes, in a block mapped
 * within 2 GiB of the module: a jmp rel32 reaches it) loads the
 * function's id into r11 and jumps to the trampoline (exact_entry.h).
 * Jumps, not a call: the processor's return-stack predictions stay as the
 * function's caller left them (unwind/exact_stack.h).
 *
 * Patching writes every long jump first: nothing runs those bytes yet, as
 * they lie before the entry. membarrier(SYNC_CORE) then makes every thread
 * of the process serialize its instruction stream (where the kernel has
 * it), and each short jump is written last, with one 2-byte store that no
 * cache line splits: a thread that reaches the entry runs either the NOPs
 * or the jump, never half of each. A thread that had run the first of two
 * 1-byte NOPs when the jump landed runs its second byte, f9 (stc; f5,
 * cmc), and the function's body: one call unmeasured, and a carry flag
 * nobody reads at a function's entry. Unpatching writes the NOP bytes back
 * over the short jump, with the same single store, and leaves the long
 * one: dead code again, whose stub stays valid (a thread that took the
 * jump just before still reaches the trampoline, which lets the call pass
 * through when the function is no longer measured).
 *
 * The code's pages are made writable (and kept executable) for the
 * writes and read+execute again after. Where they cannot be made
 * writable (SELinux's execmod, a read-only mapping), nothing is written.
 * Not from signal handlers; one patcher at a time (the caller's lock).
 */
#ifndef HPROF_EXACT_PATCH_H
#define HPROF_EXACT_PATCH_H

#include <stddef.h>
#include <stdint.h>

#include "lib/exact/exact_sites.h"

#define EXACT_STUB_SIZE 16

/* A block of n stubs near [low, high), the ids first_id..first_id+n-1,
 * jumping to entry. NULL when no room within reach could be mapped. */
typedef struct exact_stubs {
    uint64_t base; /* the first stub; the word before holds the entry's address */
    size_t len;    /* mapped bytes */
    int n;
} exact_stubs;
int exact_stubs_make(exact_stubs *b, uint64_t low, uint64_t high, uint32_t first_id, int n, uint64_t entry);
/* The block of old, whose module was unloaded, rewritten as b for n stubs
 * near [low, high) with the ids first_id..: 0; -1 when it is too small or
 * out of reach; -2 when it could not be written (the block is lost). */
int exact_stubs_reuse(exact_stubs *b, const exact_stubs *old, uint64_t low, uint64_t high, uint32_t first_id,
                      int n, uint64_t entry);
static inline uint64_t exact_stub_addr(const exact_stubs *b, int i)
{
    return b->base + (uint64_t)i * EXACT_STUB_SIZE;
}

/* Patches (on) or unpatches (off) sites[i] for each i of which[0..n-1],
 * the jump of site i going to stub[i]. 0, or -1 with a one-line reason in
 * err (nothing of it written). */
int exact_patch(const exact_site *sites, const uint64_t *stub, const int *which, int n, int on, char *err,
                size_t errlen);

#endif
