/* call_site_cache.c - call sites remembered after a walk, and their readers. */
#if defined(__x86_64__)
#include "unwind/call_site_cache.h"

#include <string.h>

#include "core/own_code.h"
#include "unwind/entry_cache.h"
#include "unwind/exact_stack.h"
#include "unwind/mpi_site_cache.h"
#include "unwind/recipe.h"

/* The return address may be a thunk: a redirected frame that tail-called
 * the MPI function handed its own (redirected) return address to the
 * wrapper. */
uint64_t *call_site_caller_of_wrapper(const uw_thread *st, const void *frame, regs *r)
{
    uint64_t f = (uint64_t)(uintptr_t)frame;
    if (!frame || (f & 7) || f <= current_sp() || f + 16 > st->stack_hi)
        return NULL;
    uint64_t *slot = (uint64_t *)(uintptr_t)(f + 8);
    uint64_t pc = *slot;
    if (pc == exact_exit_addr()) /* a measured function tail-called the wrapper or function */
        pc = exact_stack_translate(&st->ex, slot);
    if (!pc || (own_code(pc) && thunk_index(pc) < 0))
        return NULL;
    r->pc = pc;
    r->sp = f + 16;
    r->bp = *(const uint64_t *)(uintptr_t)f;
    r->bp_ok = 1;
    return slot;
}

/* The mark of the activation of the frame that made the call a walk from
 * its call site found (ips[1]'s slot): 0, or -1 when nothing vouches for
 * it (its slot holds neither a thunk of ours nor an exact call's exit). */
static int caller_mark_of(const uw_thread *st, const walk *w, struct caller_mark *m)
{
    int d = (w->status == WK_OK ? w->thunk : 0) + w->n - 2; /* depth of ips[1] */
    if (w->n < 2)
        return -1;
    *m = (struct caller_mark){ w->slots[1], d, 0, -1 };
    if (*w->slots[1] == exact_exit_addr()) {
        /* the caller is an exactly measured call: its entry knows the path
         * to its own call site, so any activation of it in that slot from
         * that same site has the same path */
        const exact_entry *e;
        if ((m->exact = exact_stack_index(&st->ex, w->slots[1])) < 0 ||
            (e = &st->ex.e[m->exact])->site == CCT_NONE || e->depth != d)
            return -1;
        m->node = e->site;
        return 0;
    }
    if (d < 0 || d >= THUNK_COUNT || st->slot[d] != w->slots[1] || *w->slots[1] != thunk_addr(d))
        return -1;
    m->node = st->node[d];
    return 0;
}

/* The caller's CFA (hence its slot) follows from the same return address
 * and sp, and from rbp where its recipe says the CFA is rbp-based. Another
 * caller frame (or the same one, but its path's node changed) drops the
 * sites. */
void call_site_remember_mpi(uw_thread *st, const walk *w, const uint64_t *frame, uint32_t node)
{
    struct caller_mark m;
    if (caller_mark_of(st, w, &m) != 0)
        return;
    const recipe *rc = recipe_find_ra(w->ips[0]);
    if (!rc)
        return;
    if (st->caller_slot != m.slot || st->caller_exact != m.exact || st->caller_depth != m.depth ||
        st->caller_node != m.node) {
        memset(st->sites, 0, sizeof st->sites);
        st->caller_slot = m.slot;
        st->caller_depth = m.depth;
        st->caller_node = m.node;
        st->caller_exact = m.exact;
    }
    /* its own entry, else an empty one, else one of the others goes */
    unsigned i = site_index(frame[1]), at = (i + (unsigned)(frame[1] >> 4) % SITE_PROBE) & (SITE_CACHE - 1);
    for (unsigned k = 0, free_at = SITE_CACHE; k < SITE_PROBE; k++, i = (i + 1) & (SITE_CACHE - 1)) {
        if (st->sites[i].ra == frame[1]) {
            at = i;
            break;
        }
        if (!st->sites[i].ra && free_at == SITE_CACHE)
            at = free_at = i;
    }
    struct site *c = &st->sites[at];
    c->frame = frame;
    c->ra = frame[1];
    c->bp = frame[0];
    c->need_bp = (rc->flags & RECIPE_CFA_RBP) != 0;
    c->node = node;
}

void call_site_remember_entry(uw_thread *st, const walk *w, const uint64_t *frame, uint32_t node)
{
    struct caller_mark m;
    const recipe *rc;
    if (caller_mark_of(st, w, &m) != 0 || !(rc = recipe_find_ra(w->ips[0])))
        return;
    struct entry_site *set = entry_set_of(st, frame), *c;
    if (entry_site_is(&set[0], frame) || !set[0].frame)
        c = &set[0];
    else if (entry_site_is(&set[1], frame) || !set[1].frame)
        c = &set[1];
    else
        c = &set[st->esite_victim ^= 1]; /* the two in turn */
    c->frame = frame;
    c->ra = frame[1];
    c->bp = frame[0];
    c->need_bp = (rc->flags & RECIPE_CFA_RBP) != 0;
    c->node = node;
    c->caller = m;
    c->child = NULL; /* a child of the node it held before, maybe */
}

uint32_t unwind_mpi_cached(const void *wrapper_frame)
{
    return mpi_site_cached(wrapper_frame);
}

void unwind_token_take(unwind_token *tok)
{
    const uw_thread *st = uw_self;
    tok->epoch_at = NULL;
    if (!st || !st->caller_slot || st->caller_exact >= 0 || *st->caller_slot != thunk_addr(st->caller_depth))
        return;
    tok->epoch_at = &st->epoch;
    tok->epoch = st->epoch;
    tok->slot = st->caller_slot;
    tok->thunk = thunk_addr(st->caller_depth);
}

int unwind_site_needs_bp(const void *wrapper_frame)
{
    const uw_thread *st = uw_self;
    const uint64_t *f = wrapper_frame;
    const struct site *c = st && f ? site_find(st->sites, f[1]) : NULL;
    return !c || c->need_bp;
}

#endif
