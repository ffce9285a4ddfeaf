#define _GNU_SOURCE
/*
 * unwind_x86_64.c - fast call-path capture on x86_64: an MPI call's, an
 * exact entry's or a sample's path as addresses or as a node of the
 * calling context tree, from cached frame recipes (recipe.h) and the
 * thunk stack (thunk_stack.h).
 *
 * The parts: frame_walk.c walks (a recipe a frame, stopping at the first
 * thunk); walk_commit.c turns a finished walk into tree nodes and visits
 * and redirects the new frames' return addresses to thunks, so that the
 * next walk stops there; call_site_cache.c remembers the call site a walk
 * found, so that the next call from it needs no walk. A recipe miss is
 * learned on the spot (libdw) in an MPI call; in a signal handler the
 * address is queued for the thread's next MPI call and the sample falls
 * back to libunwind (libunwind_walk.c), as does CFI the recipes do not
 * model. Anything that walks the stack itself (C++ exceptions,
 * backtrace(), libunwind) or switches stacks gets the original return
 * addresses back first (lib/interpose/unwinders.c).
 */
#if defined(__x86_64__)
#include "unwind/libunwind_walk.h"
#include "unwind/unwind.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <string.h>
#include <ucontext.h>

#include "core/own_code.h"
#include "unwind/call_site_cache.h"
#include "unwind/exact_stack.h"
#include "unwind/frame_walk.h"
#include "unwind/learner.h"
#include "unwind/own_walk.h"
#include "unwind/python/py_splice.h"
#include "unwind/recipe.h"
#include "unwind/switch_code.h"
#include "unwind/thunk_stack.h"
#include "unwind/tree_path.h"
#include "unwind/unwind_check.h"
#include "unwind/walk_commit.h"

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

/* ---- paths as address lists ------------------------------------------------ */

__attribute__((noinline)) int unwind_mpi_path(uint64_t *ips, int max)
{
    uw_thread *st = thunk_stack_get();
    regs r;
    CAPTURE(r);
    r.bp_ok = 1;
    if (!walk_in_stack(st, r.sp)) {
        unwind_restore_thunks();
        return lu_mpi_path(ips, max);
    }
    walk w;
    frame_walk(st, &w, r, max < UNWIND_MAX_FRAMES ? max : UNWIND_MAX_FRAMES, WALK_SKIP_OWN | WALK_LEARN,
               NULL);
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
    if (!walk_in_stack(st, r.sp)) {
        unwind_restore_thunks();
        return lu_signal_path(ips, max, ucontext);
    }
    walk w;
    frame_walk(st, &w, r, max < UNWIND_MAX_FRAMES ? max : UNWIND_MAX_FRAMES, 0, NULL);
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

/* What a call site's walk may do beyond the recipes already learned:
 * learn more (libdw and the loader's list: malloc, locks; never in a
 * signal handler, whose thread may hold them), and fall back to
 * libunwind. A recipe it may not learn goes to the learner thread. */
#define SITE_LEARN 1u
#define SITE_LIBUNWIND 2u

/* unwind_mpi_node; for an exactly measured call's entry (depth not NULL)
 * also the depth of the call site's frame in the thunk stack (-1: not
 * known), and the call site kept in the entry sites, not the MPI ones.
 * how: SITE_ bits. A signal handler over the MPI call of wrapper_frame
 * may hold the loader's lock or libdw's: neither bit (CCT_NONE with
 * *failed set where they would be needed; a later sample tries again). */
static uint32_t call_site_node(cct *tree, const void *wrapper_frame, int *failed, int *depth, unsigned how)
{
    *failed = 0;
    if (depth)
        *depth = -1;
    uw_thread *st = python_room(thunk_stack_get());
    if (how & SITE_LEARN)
        learner_drain(0);
    if (st)
        st->foreign = 0; /* a foreign walk ended before any MPI call (unwind.h) */
    regs r;
    CAPTURE(r);
    r.bp_ok = 1;
    walk w;
    w.status = WK_COMPLEX;
    if (walk_in_stack(st, r.sp) && !uw_plain_mode) {
        uint64_t *first_slot = call_site_caller_of_wrapper(st, wrapper_frame, &r);
        frame_walk(st, &w, r, UNWIND_MAX_FRAMES,
                   (first_slot ? 0u : WALK_SKIP_OWN) | (st->thunks ? WALK_STOP_AT_THUNK : 0u) |
                       (how & SITE_LEARN ? WALK_LEARN : WALK_OWN_RECIPES),
                   first_slot);
    }
    if (uw_check_mode > 0 && (how & SITE_LEARN))
        unwind_check_count(0, check_outcome(w.status));
    if (w.status == WK_MISS && !(how & SITE_LEARN))
        learner_request(w.miss);
    if (!(how & SITE_LIBUNWIND) && (w.status == WK_COMPLEX || w.status == WK_MISS || w.status == WK_FAIL)) {
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
    uint32_t node = walk_commit(st, tree, &w, &py, 1, 0, st->thunks);
    if (node != CCT_NONE && st->thunks && w.n > 0 && w.slots[0] == (const uint64_t *)wrapper_frame + 1) {
        if (depth) {
            *depth = (w.status == WK_OK ? w.thunk : 0) + w.n - 1;
            call_site_remember_entry(st, &w, wrapper_frame, node);
        } else {
            call_site_remember_mpi(st, &w, wrapper_frame, node);
        }
    }
    if (uw_check_mode > 0 && node != CCT_NONE && (how & SITE_LEARN))
        check_against_libunwind(st, tree, node, NULL, depth ? wrapper_frame : NULL);
    return node;
}

uint32_t unwind_mpi_node(cct *tree, const void *wrapper_frame, int *failed)
{
    return call_site_node(tree, wrapper_frame, failed, NULL, SITE_LEARN | SITE_LIBUNWIND);
}

uint32_t unwind_mpi_node_in_handler(cct *tree, const void *wrapper_frame, int *failed)
{
    return call_site_node(tree, wrapper_frame, failed, NULL, 0);
}

uint32_t unwind_entry_node(cct *tree, const void *frame, int *failed, int *depth, int may_learn)
{
    return call_site_node(tree, frame, failed, depth, (may_learn ? SITE_LEARN : 0u) | SITE_LIBUNWIND);
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
    if (walk_in_stack(st, r.sp) && !uw_plain_mode)
        frame_walk(st, &w, r, UNWIND_MAX_FRAMES, st->thunks ? WALK_STOP_AT_THUNK : 0u, NULL);
    if (uw_check_mode > 0)
        unwind_check_count(1, check_outcome(w.status));
    if (w.status != WK_COMPLEX && w.inside) {
        *inside = 1;
        return CCT_NONE;
    }
    if (w.status == WK_COMPLEX || w.status == WK_MISS) {
        if (w.status == WK_MISS)
            learner_request(w.miss);
        if (switch_code_at(r.pc)) {
            *inside = 1; /* libunwind from there may read an unmapped stack (switch_code.h) */
            return CCT_NONE;
        }
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
            /* a failed walk there met the other context's stack (switch_code.h) */
            *inside = switch_code_at(r.pc);
            *failed = !*inside;
            return *inside ? CCT_NONE : tree_path_failed(tree, NULL, 0);
        }
        /* learn the rest of this path's recipes too (off the handler) */
        for (int i = 0; w.status == WK_MISS && i < n; i++) {
            uint64_t key = i == 0 ? w.ips[0] | RECIPE_EXACT : w.ips[i];
            if (!(i == 0 ? recipe_find_pc(w.ips[0]) : recipe_find(key)) && key != w.miss)
                learner_request(key);
        }
        return python_path_from_root(st, tree, w.ips, n, 1, r.sp, 0);
    }
    if (w.status == WK_FAIL && switch_code_at(r.pc)) {
        *inside = 1;
        return CCT_NONE;
    }
    if (w.status == WK_FAIL) {
        *failed = 1;
        if (w.n > 0)
            w.ips[0] += 1;
        return tree_path_failed(tree, w.ips, w.n);
    }
    py_path py;
    python_of_walk(st, &w, &py, r.sp, 1);
    uint32_t node = walk_commit(st, tree, &w, &py, 2, 1, st->thunks && !st->foreign);
    if (uw_check_mode > 0 && node != CCT_NONE)
        check_against_libunwind(st, tree, node, ucontext, NULL);
    return node;
}

#endif
