/*
 * entry_cache.h - the call sites of exactly measured calls' entries a
 * thread met, each with its caller's activation and the function last
 * entered from it (thunk_stack.h: struct entry_site), and the test that a
 * walk's caller is still the activation a cached call site was found in.
 * call_site_cache.c fills the cache at an entry's walk (unwind_entry_node,
 * unwind.h); the entry's fast path
 * (lib/exact/exact_entry.c) reads it inline. Nothing here allocates,
 * takes a lock or uses a vector register. x86_64.
 */
#ifndef HPROF_ENTRY_CACHE_H
#define HPROF_ENTRY_CACHE_H

#include <stdint.h>

#include "core/cct.h"
#include "unwind/exact_stack.h"
#include "unwind/thunk_stack.h"

/* The caller's activation is still the one m stands for. */
static inline int caller_holds(const uw_thread *st, const struct caller_mark *m)
{
    int k = m->exact;
    if (k >= 0) {
        const exact_entry *e = &st->ex.e[k];
        return (uint32_t)k < st->ex.top && e->slot == m->slot && e->site == m->node && e->depth == m->depth &&
               e->armed == EXACT_ARMED && *m->slot == exact_exit_addr();
    }
    int d = m->depth;
    return d < st->top && st->slot[d] == m->slot && *m->slot == thunk_addr(d) && st->node[d] == m->node;
}

/* The set of two entries a call site may be in, by return address and
 * frame: one call site met at several depths of a recursion is a site per
 * frame. Two ways, as a recursion's frames lie a fixed stride apart: for
 * some strides (80, 112, 160 bytes) most stack addresses put two of 17
 * frames on one entry of a direct-mapped table, whose calls then walked
 * at every visit; in a set of two, three of them must meet. */
static inline struct entry_site *entry_set_of(uw_thread *st, const uint64_t *frame)
{
    uint64_t k = frame[1] ^ (uint64_t)(uintptr_t)frame >> 4;
    return &st->esites[(k ^ k >> 6 ^ k >> 12) & (ENTRY_SITES - 2)];
}

static inline int entry_site_is(const struct entry_site *c, const uint64_t *frame)
{
    return c->frame == frame && c->ra == frame[1];
}

/* The cached call site of an exact entry when the thread st (its own:
 * uw_self) still knows it without a walk: frame is the trampoline's
 * (saved rbp, then the function's return address). Its node is the call
 * site's, its caller's depth + 1 the call site's frame's depth in the
 * thunk stack (the frame lies right below its caller's). NULL: a walk
 * must find it. */
static inline struct entry_site *unwind_entry_site(uw_thread *st, const uint64_t *frame)
{
    struct entry_site *c = entry_set_of(st, frame);
    if (!entry_site_is(c, frame) && !entry_site_is(++c, frame))
        return NULL;
    if ((c->need_bp && c->bp != frame[0]) || !caller_holds(st, &c->caller))
        return NULL;
    return c;
}

/* exact_stack_push where exact_stack_push_plain holds, for an activation
 * entered from cached call site c (the entry's fast path): the site's
 * node, its frame's depth (its caller's + 1) and the function are read
 * from c as they are stored, not held in registers before, so that the
 * fast path saves fewer of them. */
static inline __attribute__((always_inline)) void
entry_site_push(exact_stack *x, const struct entry_site *c, uint64_t *slot, cct_node *node, uint64_t now)
{
    exact_entry *e = &x->e[x->top];
    e->site = c->node;
    e->depth = c->caller.depth + 1;
    e->fn = c->fn;
    e->node = node;
    e->t0 = now;
    e->slot = slot;
    e->ra = *slot;
    e->inner_ns = 0;
    e->armed = EXACT_ARMED;
    x->top++;
    *slot = exact_exit_addr();
}

#endif
