/* frame_walk.c - the recipe walker: one step a frame, stops at thunks. */
#if defined(__x86_64__)
#include "unwind/frame_walk.h"

#include "core/cct.h"
#include "core/own_code.h"
#include "unwind/exact_stack.h"
#include "unwind/learner.h"
#include "unwind/libunwind_walk.h"
#include "unwind/recipe.h"

/* The interrupted frame's saved rbp may lie below rsp: an epilogue that
 * popped it keeps the CFI's "saved at CFA-n" (GCC emits no restore for a
 * pop), and a leaf may save it in the red zone (RED_ZONE, frame_walk.h).
 * It is still there: the kernel puts a signal frame below the red zone.
 * Only the first step (its exact pc) can see such a row. */

/* Steps from the frame whose recipe key is key to its caller; flags:
 * frame_walk's WALK_LEARN and WALK_OWN_RECIPES. */
static inline int step(regs *r, uint64_t key, uint64_t hi, uint64_t **slot, unsigned flags)
{
    int learn = (flags & WALK_LEARN) != 0, own_recipe = (flags & (WALK_LEARN | WALK_OWN_RECIPES)) != 0;
    const recipe *rc = key & RECIPE_EXACT ? recipe_find_pc(key & ~RECIPE_EXACT)
                       : own_recipe       ? recipe_find(key)
                                          : recipe_find_ra(key);
    if (!rc) {
        if (!learn)
            return WK_MISS;
        /* waits for another learner rather than walk with libunwind, which
         * puts the thunks back: the next walk could not tell new frames */
        rc = recipe_learn(key, 1);
        if (!rc)
            return WK_COMPLEX;
    } else if (!own_recipe && !(key & RECIPE_EXACT) && rc->key != key) {
        learner_request(key); /* its own recipe, to redirect it next time */
    }
    if (rc->kind != RECIPE_STEP)
        return rc->kind == RECIPE_END ? WK_END : rc->kind == RECIPE_BAD ? WK_FAIL : WK_COMPLEX;
    uint64_t base;
    if (rc->flags & RECIPE_CFA_RBP) {
        if (!r->bp_ok)
            return WK_FAIL;
        base = r->bp;
    } else {
        base = r->sp;
    }
    uint64_t cfa = base + (int64_t)rc->cfa_off;
    if (cfa <= r->sp || (cfa & 7) || cfa > hi)
        return WK_FAIL;
    uint64_t *s = (uint64_t *)(uintptr_t)(cfa - 8);
    if (rc->flags & RECIPE_RBP_SAVED) {
        uint64_t a = cfa + (int64_t)rc->rbp_off;
        if (a < (key & RECIPE_EXACT ? r->sp - RED_ZONE : r->sp) || a + 8 > hi || (a & 7))
            return WK_FAIL;
        r->bp = *(uint64_t *)(uintptr_t)a;
        r->bp_ok = 1;
    } else if (rc->flags & RECIPE_RBP_UNDEF) {
        r->bp_ok = 0;
    }
    r->sp = cfa;
    r->pc = *s;
    *slot = s;
    return WK_OK;
}

void frame_walk(uw_thread *st, walk *w, regs r, int max, unsigned flags, uint64_t *first_slot)
{
    int skip_own = (flags & WALK_SKIP_OWN) != 0, stop = (flags & WALK_STOP_AT_THUNK) != 0;
    unsigned recipes = flags & (WALK_LEARN | WALK_OWN_RECIPES);
    uint64_t key = r.pc | RECIPE_EXACT;
    uint64_t hi = st->stack_hi;
    int own = skip_own, nown = 0;
    w->n = 0;
    w->sp = r.sp;
    w->inside = 0;
    w->thunk = -1;
    w->exact_hint = (int)st->ex.top;
    w->at_exact = 0;
    if (!skip_own && !first_slot) {
        if (own_code(r.pc)) {
            w->inside = 1;
            w->status = WK_FAIL;
            return;
        }
        w->ips[0] = r.pc;
        w->slots[0] = NULL;
        w->n = 1;
    }
    uint64_t *slot = first_slot;
    for (int stepped = first_slot != NULL;; stepped = 0) {
        int s = stepped ? WK_OK : step(&r, key, hi, &slot, recipes);
        if (s != WK_OK) {
            if (s == WK_MISS)
                w->miss = key;
            w->status = own && s == WK_END ? WK_FAIL : s;
            return;
        }
        uint64_t pc = r.pc;
        if (pc == 0) {
            w->status = own ? WK_FAIL : WK_END;
            return;
        }
        if (!cct_key_is_code(pc)) {
            w->status = WK_FAIL; /* not a return address: never a key (cct.h) */
            return;
        }
        /* An exactly measured call's slot: its return address, and where
         * its entry knows the path to its caller, a stop like a thunk's. */
        const exact_entry *ex = NULL;
        if (pc == exact_exit_addr()) {
            int k = exact_stack_index_below(&st->ex, slot, w->exact_hint);
            if (k >= 0) {
                w->exact_hint = k;
                ex = &st->ex.e[k];
                pc = ex->ra;
            } else if (!(pc = exact_stack_translate(&st->ex, slot))) {
                w->status = WK_FAIL; /* an exit thunk no exact call stands for */
                return;
            } /* else a call closed while its frame lived on (exact_stack.h) */
        }
        int d = thunk_index(pc);
        if (d != -1) {
            if (d < 0 || own || d >= st->top || st->slot[d] != slot) {
                w->status = WK_FAIL; /* a thunk address we did not put there */
                return;
            }
            pc = st->ra[d];
        }
        if (own) {
            if (own_code(pc)) {
                if (++nown >= OWN_FRAMES_MAX) {
                    w->status = WK_FAIL;
                    return;
                }
                key = pc;
                continue;
            }
            own = 0;
        } else if (own_code(pc)) {
            w->inside = 1;
            w->status = WK_FAIL;
            return;
        }
        if (w->n == max) {
            w->status = WK_FAIL; /* deeper than max */
            return;
        }
        w->ips[w->n] = pc;
        w->slots[w->n] = slot;
        w->n++;
        if (d >= 0 && stop) {
            w->thunk = d;
            w->stop_node = st->node[d];
            w->status = WK_OK;
            return;
        }
        /* at any depth: past THUNK_COUNT no thunk marks a frame, and
         * without this stop each entry of a deeper recursion would walk
         * UNWIND_MAX_FRAMES frames and fail */
        if (ex && stop && d == -1 && ex->depth >= 0 && ex->site != CCT_NONE) {
            w->thunk = ex->depth;
            w->stop_node = ex->site;
            w->at_exact = 1;
            w->status = WK_OK;
            return;
        }
        key = pc;
    }
}

#endif
