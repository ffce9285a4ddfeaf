/* walk_commit.c - a walk's frames into tree nodes, visits, and thunks. */
#if defined(__x86_64__)
#include "unwind/walk_commit.h"

#include "unwind/exact_stack.h"
#include "unwind/recipe.h"

/* Frame j of a walk is an exactly measured call's (its return address
 * slot holds the exit thunk): its calls are counted exactly, not here. */
static int exact_frame(const walk *w, int j)
{
    return j + 1 < w->n && w->slots[j + 1] && *w->slots[j + 1] == exact_exit_addr();
}

/* Where hprof's own frames lie under a walk's: at and above live_lo the
 * program's frames (a sample's interrupted one with its red zone), below
 * it down to own_lo hprof's (the wrapper's, the signal handler's where it
 * runs on the thread's stack); below own_lo no frame of the running
 * context. */
typedef struct own_span {
    uint64_t own_lo, live_lo;
} own_span;

static own_span own_span_of(const uw_thread *st, const walk *w, int sample)
{
    own_span o;
    o.live_lo = sample || !w->n || !w->slots[0] ? w->sp - RED_ZONE : (uint64_t)(uintptr_t)w->slots[0];
    uint64_t here = current_sp();
    o.own_lo = walk_in_stack(st, here) && here < o.live_lo ? here : o.live_lo;
    return o;
}

/* The record at depth d gives way (to a new frame's, or to none). Its
 * frame was taken for gone by the depths' order; where its slot still
 * holds thunk d, it lives on, on a part of the thread's stack the program
 * switched away from with code hprof does not see (a coroutine whose
 * stack lies on the thread's own): its return address goes back into the
 * slot, so that its return, when it comes, goes where it would without
 * hprof and no walk meets a thunk whose record another frame holds.
 * hprof's own frames are never written. */
static void release_record(uw_thread *st, int d, own_span o)
{
    uint64_t *s = st->slot[d];
    uint64_t a = (uint64_t)(uintptr_t)s;
    if (!s || a < st->stack_lo || a >= st->stack_hi || (a >= o.own_lo && a < o.live_lo) ||
        *s != thunk_addr(d))
        return;
    *s = st->ra[d];
    thunk_stack_released(st, s);
}

/* The frame whose return address slot is s was met before, its thunk
 * taken back since (thunk_stack_released): not a new visit. Met once: a
 * later frame there is new. */
static int released_met(uw_thread *st, uint64_t *s)
{
    for (unsigned i = 0; i < RELEASED_SLOTS; i++) {
        if (st->released[i] == s) {
            st->released[i] = NULL;
            st->nreleased--;
            return 1;
        }
    }
    return 0;
}

uint32_t walk_commit(uw_thread *st, cct *tree, walk *w, const py_path *py, int first_patch, int sample,
                     int patch)
{
    uint32_t nodes[UNWIND_MAX_FRAMES];
    int n = w->n;
    int old_top = st->top < THUNK_COUNT ? (int)st->top : THUNK_COUNT;
    own_span own = { 0, 0 };
    int base;      /* depth of ips[n-1] */
    int first_new; /* ips[first_new..0] are new keys */
    uint32_t node;
    if (w->status == WK_OK) {
        base = w->thunk;
        node = w->stop_node;
        if (w->at_exact &&
            base < THUNK_COUNT) { /* no thunk stands at this depth: the exact call's exit does */
            if (base < old_top)
                release_record(st, base, own_span_of(st, w, sample));
            st->slot[base] = NULL;
            st->node[base] = node;
        }
        nodes[n - 1] = node;
        first_new = n - 2;
    } else {
        base = 0;
        node = CCT_ROOT;
        first_new = n - 1;
    }
    if (sample)
        w->ips[0] += 1; /* an instruction, not a return address: key - 1 must lie inside it */
    node = py_path_add(tree, node, w->ips, first_new, py, nodes);
    if (sample)
        w->ips[0] -= 1;
    if (node == CCT_NONE)
        return CCT_NONE;
    if (!patch)
        return node;
    if (old_top > 0)
        own = own_span_of(st, w, sample);
    /* Visits: frame j was entered since the last walk if the slot that
     * holds its return address (slots[j+1]) held no thunk. A lower bound,
     * exact for a function that makes an MPI call (or is sampled) on every
     * visit. Not a sample's interrupted function (its slot is never
     * redirected: it may be old), not after the thunks were dropped, not
     * a frame whose thunk was taken back while it lived on (met here:
     * released_met forgets it, even after a drop), and not the evaluation
     * loop's activations (py_splice.h): Python frames come and go inside
     * one. */
    int old_frame = w->status == WK_OK ? n - 2 : n; /* frames >= old_frame are old */
    for (int j = sample ? 1 : 0; j < old_frame && j < n; j++)
        if (!(st->nreleased && j + 1 < n && released_met(st, w->slots[j + 1])) && !st->unknown &&
            (!py->nact || !py_path_replaced(py, j)) && !exact_frame(w, j))
            tree->nodes[nodes[j]].counter[CCT_VISITS]++;
    st->unknown = 0;
    /* Redirect the new frames' slots, each only where it is proven to hold
     * a return address: the walk through it reached the outermost frame
     * or a thunk of ours (commit runs only then), the slot is where the
     * CFI of the frame below puts it (its row's own rule, recipe.c), still
     * holds the value read, and that value has its own recipe, which found
     * a call instruction right before it. */
    int top = -1;
    for (int j = first_new; j >= first_patch; j--) {
        int depth = base + (n - 1 - j);
        if (depth >= THUNK_COUNT)
            break;
        if (depth < old_top)
            release_record(st, depth, own);
        st->node[depth] = nodes[j];
        const recipe *rc = recipe_find(w->ips[j]);
        if (!rc || !(rc->flags & RECIPE_AFTER_CALL) || *w->slots[j] != w->ips[j]) {
            st->slot[depth] = NULL;
        } else {
            st->ra[depth] = w->ips[j];
            st->slot[depth] = w->slots[j];
            *w->slots[j] = thunk_addr(depth);
        }
        top = depth;
    }
    if (top >= 0)
        st->top = top + 1;
    else if (w->status != WK_OK)
        st->top = 0;
    else if (base < THUNK_COUNT)
        st->top = base + 1;
    /* else stopped at an exact call deeper than any thunk: the thunks,
     * all above it, stay as they are */
    for (int d = (int)st->top; d < old_top; d++)
        release_record(st, d, own);
    st->epoch++;
    return node;
}

#endif
