#define _GNU_SOURCE
/*
 * unwind_x86_64.c - fast call-path capture on x86_64: cached frame recipes
 * (recipe.h) and the thunk stack.
 *
 * Walk: start from the registers of this function (MPI calls) or of the
 * interrupted context (samples) and step frame by frame with the recipe of
 * each address: CFA = rsp|rbp + offset, return address at CFA-8, caller's
 * rbp saved or kept. Every address read from the stack is checked to lie
 * between the walk's starting sp and the top of the thread's stack first.
 * A recipe miss is learned on the spot (libdw) in an MPI call; in a signal
 * handler the address is queued for the thread's next MPI call and the
 * sample falls back to libunwind. CFI we do not model (signal trampolines,
 * expressions) falls back to libunwind too; frames without unwind
 * information end the walk as a failed unwind.
 *
 * Thunk stack: as a walk passes frame j (at depth i from the outermost
 * frame) it replaces the return address saved in that frame's slot by the
 * address of thunk i, keeping the original in this thread's table ra[i],
 * the slot in slot[i] and the calling-context-tree node of the path down
 * to depth i in node[i]. Thunk i (thunks_x86_64.c) sets top = i and jumps
 * to ra[i]. The next walk stops at the first slot that holds a thunk: the
 * rest of the path is node[i]. Frames passed before it have been entered
 * since the last walk: their visits are counted. Return addresses are only
 * redirected after a call instruction, never the interrupted function's own
 * (a sample's top frame) nor a wrapper's; anything that walks the stack
 * itself (C++ exceptions, backtrace(), libunwind) or switches stacks gets
 * the originals back first (lib/interpose/unwinders.c).
 */
#if defined(__x86_64__)
#include "unwind/libunwind_walk.h"
#include "unwind/unwind.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <string.h>
#include <ucontext.h>

#include "unwind/entry_cache.h"
#include "unwind/mpi_site_cache.h"
#include "unwind/exact_stack.h"
#include "unwind/own_walk.h"
#include "core/own_code.h"
#include "unwind/python/py_splice.h"
#include "unwind/learner.h"
#include "unwind/recipe.h"
#include "unwind/thunk_stack.h"
#include "unwind/thunks.h"
#include "unwind/tree_path.h"
#include "unwind/unwind_check.h"

/* ---- set-up ---------------------------------------------------------------- */

/* The thread's room for reading Python frames, made outside signal
 * handlers (its first MPI call or sampled start) once Python is found. */
static uw_thread *python_room(uw_thread *st)
{
    if (st && !st->py && py_runtime_on)
        st->py = py_thread_create();
    return st;
}

void unwind_thread_init(void)
{
    void *buf[4];
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    hprof_real_unw_backtrace(buf, 4);
    python_room(thunk_stack_get());
}

void unwind_process_start(void)
{
    learner_start();
}

/* Before hprof's own libunwind walk: unlike a foreign walk it ends before
 * we return, so later samples may patch again; the exactly measured calls'
 * slots get their exit thunk back after it (rearm_after_own_walk). */
static void restore_for_own_walk(uw_thread *st)
{
    if (st) {
        thunk_stack_restore(st);
        exact_stack_disarm_own(&st->ex, current_sp());
    }
}

static void rearm_after_own_walk(uw_thread *st)
{
    if (st)
        exact_stack_rearm_own(&st->ex);
}

/* ---- walking -------------------------------------------------------------------- */

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

/* The interrupted frame's saved rbp may lie below rsp: an epilogue that
 * popped it keeps the CFI's "saved at CFA-n" (GCC emits no restore for a
 * pop), and a leaf may save it in the red zone. It is still there: the
 * kernel puts a signal frame below the 128-byte red zone of the x86-64
 * ABI. Only the first step (its exact pc) can see such a row. */
#define RED_ZONE 128

/* Steps from the frame whose recipe key is key to its caller. */
static inline int step(regs *r, uint64_t key, uint64_t hi, uint64_t **slot, int learn)
{
    const recipe *rc = key & RECIPE_EXACT ? recipe_find_pc(key & ~RECIPE_EXACT)
                       : learn            ? recipe_find(key)
                                          : recipe_find_ra(key);
    if (!rc) {
        if (!learn)
            return WK_MISS;
        rc = recipe_learn(key, 0);
        if (!rc)
            return WK_COMPLEX;
    } else if (!learn && !(key & RECIPE_EXACT) && rc->key != key) {
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
} walk;

/* What a walk does (do_walk's flags). */
enum walk_flags {
    WALK_SKIP_OWN = 1,      /* an MPI call: hprof's leading frames skipped (a sample: one sets inside) */
    WALK_STOP_AT_THUNK = 2, /* stop at the first thunk (or measured exact call), else walk through */
    WALK_LEARN = 4,         /* a frame without a recipe is learned now (step), else missed */
};

/* flags: enum walk_flags. first_slot: r is the state of a caller already
 * (r.pc its return address, read from first_slot), not of the frame to
 * step from. */
static void do_walk(uw_thread *st, walk *w, regs r, int max, unsigned flags, uint64_t *first_slot)
{
    int skip_own = (flags & WALK_SKIP_OWN) != 0, stop = (flags & WALK_STOP_AT_THUNK) != 0;
    int learn = (flags & WALK_LEARN) != 0;
    uint64_t key = r.pc | RECIPE_EXACT;
    uint64_t hi = st->stack_hi;
    int own = skip_own, nown = 0;
    w->n = 0;
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
        int s = stepped ? WK_OK : step(&r, key, hi, &slot, learn);
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

#define CAPTURE(r)                                                           \
    __asm__ volatile("leaq 0(%%rip), %0\n\tmovq %%rsp, %1\n\tmovq %%rbp, %2" \
                     : "=r"((r).pc), "=r"((r).sp), "=r"((r).bp))

/* ---- libunwind fallback: unwind/libunwind_walk.c ---- */

/* ---- paths as address lists ------------------------------------------------ */

static int in_stack(const uw_thread *st, uint64_t sp)
{
    return st && st->stack_hi && sp >= st->stack_lo && sp < st->stack_hi;
}

__attribute__((noinline)) int unwind_mpi_path(uint64_t *ips, int max)
{
    uw_thread *st = thunk_stack_get();
    regs r;
    CAPTURE(r);
    r.bp_ok = 1;
    if (!in_stack(st, r.sp)) {
        unwind_restore_thunks();
        return lu_mpi_path(ips, max);
    }
    walk w;
    do_walk(st, &w, r, max < UNWIND_MAX_FRAMES ? max : UNWIND_MAX_FRAMES, WALK_SKIP_OWN | WALK_LEARN, NULL);
    if (w.status == WK_COMPLEX || w.status == WK_MISS) {
        restore_for_own_walk(st);
        int n = lu_mpi_path(ips, max);
        rearm_after_own_walk(st);
        return n;
    }
    if (w.status != WK_END)
        return 0;
    memcpy(ips, w.ips, (size_t)w.n * sizeof *ips);
    return w.n;
}

int unwind_signal_path(uint64_t *ips, int max, const void *ucontext)
{
    uw_thread *st = uw_self;
    const ucontext_t *uc = ucontext;
    regs r = { (uint64_t)uc->uc_mcontext.gregs[REG_RIP], (uint64_t)uc->uc_mcontext.gregs[REG_RSP],
               (uint64_t)uc->uc_mcontext.gregs[REG_RBP], 1 };
    if (!in_stack(st, r.sp)) {
        unwind_restore_thunks();
        return lu_signal_path(ips, max, ucontext);
    }
    walk w;
    do_walk(st, &w, r, max < UNWIND_MAX_FRAMES ? max : UNWIND_MAX_FRAMES, 0, NULL);
    if (w.inside) {
        ips[0] = r.pc;
        return 1; /* the caller sees hprof's own code */
    }
    if (w.status == WK_COMPLEX || w.status == WK_MISS) {
        if (w.status == WK_MISS)
            learner_request(w.miss);
        restore_for_own_walk(st);
        int n = lu_signal_path(ips, max, ucontext);
        rearm_after_own_walk(st);
        return n;
    }
    if (w.status != WK_END)
        return 0;
    memcpy(ips, w.ips, (size_t)w.n * sizeof *ips);
    return w.n;
}

/* ---- paths as tree nodes ------------------------------------------------------- */

/* What the self-check counts of a walk (unwind_check.h). */
static enum unwind_check_outcome check_outcome(int status)
{
    if (status == WK_OK || status == WK_END)
        return UNWIND_CHECK_FAST;
    return status == WK_FAIL ? UNWIND_CHECK_FAILED : UNWIND_CHECK_FALLBACK;
}

/* Self-check: the path of node against libunwind's walk of the same stack
 * (a sample's with ucontext, an exact entry's from its call site with
 * call_site, else an MPI call's). libunwind cannot see through thunks: it
 * walks with the original return addresses back in place, and the thunks
 * are put back after. */
static void check_against_libunwind(uw_thread *st, cct *tree, uint32_t node, const void *ucontext,
                                    const uint64_t *call_site)
{
    uint64_t ref[UNWIND_MAX_FRAMES];
    uint64_t *slots[THUNK_COUNT];
    int64_t top = st->top;
    for (int64_t i = 0; i < top; i++) {
        slots[i] = st->slot[i];
        if (slots[i] && *slots[i] == thunk_addr((int)i))
            *slots[i] = st->ra[i];
        else
            slots[i] = NULL;
    }
    exact_stack_disarm_own(&st->ex, current_sp());
    int nref = ucontext    ? lu_step_from_context(ref, UNWIND_MAX_FRAMES, ucontext)
               : call_site ? lu_call_site_path(ref, UNWIND_MAX_FRAMES, call_site)
                           : lu_mpi_path(ref, UNWIND_MAX_FRAMES);
    rearm_after_own_walk(st);
    for (int64_t i = 0; i < top; i++)
        if (slots[i])
            *slots[i] = thunk_addr((int)i);
    unwind_check_path(tree, node, ref, nref, ucontext != NULL);
}

/* Frame j of a walk is an exactly measured call's (its return address
 * slot holds the exit thunk): its calls are counted exactly, not here. */
static int exact_frame(const walk *w, int j)
{
    return j + 1 < w->n && w->slots[j + 1] && *w->slots[j + 1] == exact_exit_addr();
}

/* After a walk that reached its end or a thunk: the nodes, the visits, and
 * the thunks for the frames passed. first_patch: the first index whose slot
 * may be redirected (1 for MPI calls: slots[0] is the wrapper's; 2 for
 * samples: slots[1] belongs to the interrupted function). */
static uint32_t commit(uw_thread *st, cct *tree, walk *w, const py_path *py, int first_patch, int sample,
                       int patch)
{
    uint32_t nodes[UNWIND_MAX_FRAMES];
    int n = w->n;
    int base;      /* depth of ips[n-1] */
    int first_new; /* ips[first_new..0] are new keys */
    uint32_t node;
    if (w->status == WK_OK) {
        base = w->thunk;
        node = w->stop_node;
        if (w->at_exact &&
            base < THUNK_COUNT) { /* no thunk stands at this depth: the exact call's exit does */
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
    /* Visits: frame j was entered since the last walk if the slot that
     * holds its return address (slots[j+1]) held no thunk. A lower bound,
     * exact for a function that makes an MPI call (or is sampled) on every
     * visit. Not a sample's interrupted function (its slot is never
     * redirected: it may be old), not after the thunks were dropped, and
     * not the evaluation loop's activations (py_splice.h): Python frames
     * come and go inside one. */
    int old_frame = w->status == WK_OK ? n - 2 : n; /* frames >= old_frame are old */
    if (!st->unknown)
        for (int j = sample ? 1 : 0; j < old_frame && j < n; j++)
            if ((!py->nact || !py_path_replaced(py, j)) && !exact_frame(w, j))
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
    st->epoch++;
    return node;
}

/* The wrapper's caller, from the wrapper's frame pointer (saved rbp at
 * frame[0], return address at frame[1]): where an MPI call's walk starts
 * without stepping through hprof's own frames. NULL (walk from here) when
 * the frame is not plausible or its caller is hprof's own code. The return
 * address may be a thunk: a redirected frame that tail-called the MPI
 * function handed its own (redirected) return address to the wrapper. */
static uint64_t *caller_of_wrapper(const uw_thread *st, const void *frame, regs *r)
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

/* After an MPI walk from the wrapper's frame that committed (node: the
 * call site's): remember where the caller's return address is and which
 * thunk it holds, and the call site, so that a later call from this site
 * in the same frame can tell its path is unchanged. The caller's CFA
 * (hence its slot) follows from the same return address and sp, and from
 * rbp where its recipe says the CFA is rbp-based. Another caller frame
 * (or the same one, but its path's node changed) drops the sites. */
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

static void remember_caller(uw_thread *st, const walk *w, const uint64_t *frame, uint32_t node)
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

/* After an exact entry's walk from its trampoline's frame that committed
 * (node: the call site's). */
static void remember_entry(uw_thread *st, const walk *w, const uint64_t *frame, uint32_t node)
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

/* The Python frames of a recipe walk's new frames (py_splice.h); none in
 * the self-check (it compares C frames with libunwind's). */
static void python_of_walk(const uw_thread *st, const walk *w, py_path *py, uint64_t sp0, int safe)
{
    py->pt = NULL;
    py->nact = py->nkeys = 0;
    if (!py_runtime_on || uw_check_mode > 0 || (w->status != WK_OK && w->status != WK_END))
        return;
    int last = w->status == WK_OK ? w->n - 2 : w->n - 1;
    py_path_by_stack(py, st->py, w->slots, w->n, last, sp0, st->stack_hi, safe);
}

/* The same for a whole path from libunwind, from the root; room for it
 * is reserved first when reserve is set (MPI calls: samples never grow
 * the tree). */
static uint32_t python_path_from_root(const uw_thread *st, cct *tree, uint64_t *ips, int n, int sample,
                                      uint64_t sp, int reserve)
{
    py_path py;
    py.pt = NULL;
    py.nact = py.nkeys = 0;
    if (py_runtime_on && uw_check_mode <= 0 && st)
        py_path_by_address(&py, st->py, ips, n, sample, sp, st->stack_hi, sample);
    if (reserve && cct_reserve(tree, (uint32_t)n + 1 + (uint32_t)py.nkeys) != 0)
        return CCT_NONE;
    if (sample)
        ips[0] += 1;
    return py_path_add(tree, CCT_ROOT, ips, n - 1, &py, NULL);
}

/* unwind_mpi_node; for an exactly measured call's entry (depth not NULL)
 * also the depth of the call site's frame in the thunk stack (-1: not
 * known), and the call site kept in the entry sites, not the MPI ones.
 * in_handler: a signal handler over the MPI call of wrapper_frame, which
 * may hold the loader's lock or libdw's: recipes already learned only, no
 * learning, no libunwind (CCT_NONE with *failed set where they would be
 * needed; a later sample tries again). */
static uint32_t call_site_node(cct *tree, const void *wrapper_frame, int *failed, int *depth, int in_handler)
{
    *failed = 0;
    if (depth)
        *depth = -1;
    uw_thread *st = python_room(thunk_stack_get());
    if (!in_handler)
        learner_drain(0);
    if (st)
        st->foreign = 0; /* a foreign walk ended before any MPI call (unwind.h) */
    regs r;
    CAPTURE(r);
    r.bp_ok = 1;
    walk w;
    w.status = WK_COMPLEX;
    if (in_stack(st, r.sp) && !uw_plain_mode) {
        uint64_t *first_slot = caller_of_wrapper(st, wrapper_frame, &r);
        do_walk(st, &w, r, UNWIND_MAX_FRAMES,
                (first_slot ? 0u : WALK_SKIP_OWN) | (st->thunks ? WALK_STOP_AT_THUNK : 0u) | WALK_LEARN,
                first_slot);
    }
    if (uw_check_mode > 0 && !in_handler)
        unwind_check_count(0, check_outcome(w.status));
    if (in_handler && (w.status == WK_COMPLEX || w.status == WK_MISS || w.status == WK_FAIL)) {
        *failed = 1;
        return CCT_NONE;
    }
    if (w.status == WK_COMPLEX || w.status == WK_MISS) {
        /* a recipe not learned (the learner held the lock: only the
         * learner itself waits for it) or not modelled: libunwind, for an
         * exact entry from its call site on (libunwind_walk.h) */
        restore_for_own_walk(st);
        int n = depth ? lu_call_site_path(w.ips, UNWIND_MAX_FRAMES, wrapper_frame)
                      : lu_mpi_path(w.ips, UNWIND_MAX_FRAMES);
        rearm_after_own_walk(st);
        if (n <= 0) {
            *failed = 1;
            return cct_reserve(tree, 1) == 0 ? tree_path_failed(tree, NULL, 0) : CCT_NONE;
        }
        return python_path_from_root(st, tree, w.ips, n, 0, current_sp(), 1);
    }
    py_path py;
    python_of_walk(st, &w, &py, w.n > 0 && w.slots[0] ? (uint64_t)(uintptr_t)w.slots[0] + 8 : r.sp, 0);
    if (cct_reserve(tree, (uint32_t)w.n + 2 + (uint32_t)py.nkeys) != 0)
        return CCT_NONE;
    if (w.status == WK_FAIL) {
        *failed = 1;
        return tree_path_failed(tree, w.ips, w.n);
    }
    uint32_t node = commit(st, tree, &w, &py, 1, 0, st->thunks);
    if (node != CCT_NONE && st->thunks && w.n > 0 && w.slots[0] == (const uint64_t *)wrapper_frame + 1) {
        if (depth) {
            *depth = (w.status == WK_OK ? w.thunk : 0) + w.n - 1;
            remember_entry(st, &w, wrapper_frame, node);
        } else {
            remember_caller(st, &w, wrapper_frame, node);
        }
    }
    if (uw_check_mode > 0 && node != CCT_NONE && !in_handler)
        check_against_libunwind(st, tree, node, NULL, depth ? wrapper_frame : NULL);
    return node;
}

uint32_t unwind_mpi_node(cct *tree, const void *wrapper_frame, int *failed)
{
    return call_site_node(tree, wrapper_frame, failed, NULL, 0);
}

uint32_t unwind_mpi_node_in_handler(cct *tree, const void *wrapper_frame, int *failed)
{
    return call_site_node(tree, wrapper_frame, failed, NULL, 1);
}

uint32_t unwind_entry_node(cct *tree, const void *frame, int *failed, int *depth)
{
    return call_site_node(tree, frame, failed, depth, 0);
}

uint32_t unwind_signal_node(cct *tree, const void *ucontext, int *failed, int *inside)
{
    *failed = 0;
    *inside = 0;
    uw_thread *st = uw_self;
    const ucontext_t *uc = ucontext;
    regs r = { (uint64_t)uc->uc_mcontext.gregs[REG_RIP], (uint64_t)uc->uc_mcontext.gregs[REG_RSP],
               (uint64_t)uc->uc_mcontext.gregs[REG_RBP], 1 };
    if (own_code(r.pc) || exact_code_at(r.pc)) {
        *inside = 1;
        return CCT_NONE;
    }
    walk w;
    w.status = WK_COMPLEX;
    if (in_stack(st, r.sp) && !uw_plain_mode)
        do_walk(st, &w, r, UNWIND_MAX_FRAMES, st->thunks ? WALK_STOP_AT_THUNK : 0u, NULL);
    if (uw_check_mode > 0)
        unwind_check_count(1, check_outcome(w.status));
    if (w.status != WK_COMPLEX && w.inside) {
        *inside = 1;
        return CCT_NONE;
    }
    if (w.status == WK_COMPLEX || w.status == WK_MISS) {
        if (w.status == WK_MISS)
            learner_request(w.miss);
        restore_for_own_walk(st);
        int n = lu_signal_path(w.ips, UNWIND_MAX_FRAMES, ucontext);
        rearm_after_own_walk(st);
        for (int i = 0; i < n; i++) {
            if (own_code(w.ips[i])) {
                *inside = 1;
                return CCT_NONE;
            }
        }
        if (n <= 0) {
            *failed = 1;
            return tree_path_failed(tree, NULL, 0);
        }
        /* learn the rest of this path's recipes too (off the handler) */
        for (int i = 0; w.status == WK_MISS && i < n; i++) {
            uint64_t key = i == 0 ? w.ips[0] | RECIPE_EXACT : w.ips[i];
            if (!(i == 0 ? recipe_find_pc(w.ips[0]) : recipe_find(key)) && key != w.miss)
                learner_request(key);
        }
        return python_path_from_root(st, tree, w.ips, n, 1, r.sp, 0);
    }
    if (w.status == WK_FAIL) {
        *failed = 1;
        if (w.n > 0)
            w.ips[0] += 1;
        return tree_path_failed(tree, w.ips, w.n);
    }
    py_path py;
    python_of_walk(st, &w, &py, r.sp, 1);
    uint32_t node = commit(st, tree, &w, &py, 2, 1, st->thunks && !st->foreign);
    if (uw_check_mode > 0 && node != CCT_NONE)
        check_against_libunwind(st, tree, node, ucontext, NULL);
    return node;
}

#endif
