/*
 * frame_walk.h - the recipe walker's records (unwind_x86_64.c and its
 * parts: walk_commit.c, call_site_cache.c).
 *
 * A walk starts from registers (an MPI call's own, or a sample's
 * interrupted context) and steps frame by frame with the recipe of each
 * address (recipe.h), every address it reads checked to lie between the
 * walk's starting sp and the top of the thread's stack; it stops at the
 * outermost frame, at the first slot that holds a thunk (thunk_stack.h)
 * or an exactly measured call's exit, or where a recipe is missing or not
 * modelled (then libunwind walks: libunwind_walk.h).
 */
#ifndef HPROF_FRAME_WALK_H
#define HPROF_FRAME_WALK_H

#if defined(__x86_64__)
#include <stdint.h>

#include "unwind/thunk_stack.h"
#include "unwind/unwind.h"

enum {
    WK_OK,
    WK_END,
    WK_FAIL,
    WK_COMPLEX,
    WK_MISS
};

typedef struct regs {
    uint64_t pc, sp, bp;
    int bp_ok;
} regs;

/* What a walk found. ips[0..n-1] innermost first; slots[j] is where ips[j]
 * was read (slots[0]: in the frame below the first kept one). */
typedef struct walk {
    uint64_t ips[UNWIND_MAX_FRAMES];
    uint64_t *slots[UNWIND_MAX_FRAMES];
    int n;
    int status;         /* WK_END (complete), WK_OK (stopped at thunk), WK_FAIL, WK_COMPLEX, WK_MISS */
    int thunk;          /* status WK_OK: thunk index (depth) of ips[n-1] */
    uint32_t stop_node; /* status WK_OK: the node of the path down to ips[n-1] */
    int exact_hint;     /* exact calls below this index were passed (exact_stack_index_below) */
    int at_exact;       /* status WK_OK: stopped at an exactly measured call's slot, not at a thunk */
    int inside;         /* a frame in hprof's own code (samples) */
    uint64_t miss;
    uint64_t sp; /* the stack pointer the walk started from (a sample's: the interrupted one) */
} walk;

/* The x86-64 ABI's red zone: a leaf function's data below its sp. */
#define RED_ZONE 128

/* What a walk does (frame_walk's flags). */
enum walk_flags {
    WALK_SKIP_OWN = 1,      /* an MPI call: hprof's leading frames skipped (a sample: one sets inside) */
    WALK_STOP_AT_THUNK = 2, /* stop at the first thunk (or measured exact call), else walk through */
    WALK_LEARN = 4,         /* a frame without a recipe is learned now (step), else missed */
    WALK_OWN_RECIPES = 8,   /* without WALK_LEARN: a frame whose own recipe is not learned yet is
                             * missed, not stepped by a neighbour's (a sample's walk may be): a walk
                             * whose commit patches and counts visits needs each frame's own */
};

#define CAPTURE(r)                                                           \
    __asm__ volatile("leaq 0(%%rip), %0\n\tmovq %%rsp, %1\n\tmovq %%rbp, %2" \
                     : "=r"((r).pc), "=r"((r).sp), "=r"((r).bp))

static inline int walk_in_stack(const uw_thread *st, uint64_t sp)
{
    return st && st->stack_hi && sp >= st->stack_lo && sp < st->stack_hi;
}

/* flags: enum walk_flags. first_slot: r is the state of a caller already
 * (r.pc its return address, read from first_slot), not of the frame to
 * step from. */
void frame_walk(uw_thread *st, walk *w, regs r, int max, unsigned flags, uint64_t *first_slot);

#endif
#endif
