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
 * the originals back first (interpose.c).
 */
#if defined(__x86_64__)
#include "libunwind_walk.h"
#include "unwind.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "config.h"
#include "own_code.h"
#include "learner.h"
#include "recipe.h"
#include "thunks.h"


int hprof_real_unw_backtrace(void **buffer, int size); /* interpose.c */
void hprof_interpose_resolve(void);

typedef struct uw_thread {
    uint64_t stack_lo, stack_hi;  /* the thread's stack; hi = 0: unknown */
    int thunks;                   /* this thread may patch */
    int unknown;                  /* thunks were dropped: the next walk cannot tell new
                                   * frames from old ones (no visits) */
    volatile int foreign;         /* something else walked the stack since the last MPI
                                   * call (maybe still does): samples do not patch */
    uint64_t stats[4];
    /* the thunks' table: top, then ra[] (thunk code reads ra[i], writes top) */
    int64_t top;
    uint64_t ra[THUNK_COUNT];
    uint64_t *slot[THUNK_COUNT];
    uint32_t node[THUNK_COUNT];
} uw_thread;

__thread uint64_t *hprof_thunk_tab __attribute__((tls_model("initial-exec")));
static __thread uw_thread *uw __attribute__((tls_model("initial-exec")));

static int thunks_global = -1; /* -1: not decided yet */
static int check_mode = -1;
static int plain_mode; /* HPROFTEST_UNWIND=libunwind: every walk with libunwind (bench/run.py) */
static uint64_t check_compared, check_mismatched, check_printed;
static uint64_t stat_status[10]; /* [0..4] MPI walks by status, [5..9] samples */

/* ---- set-up ---------------------------------------------------------------- */

static int shadow_stack_active(void)
{
    uint64_t ssp = 0;
    /* rdsspq is a no-op where CET shadow stacks are not enabled */
    __asm__ volatile("rdsspq %0" : "+r"(ssp));
    return ssp != 0;
}

static int thunks_enabled(void)
{
    int on = __atomic_load_n(&thunks_global, __ATOMIC_RELAXED);
    if (on >= 0)
        return on;
    on = hprof_config.thunks && !shadow_stack_active();
    const char *c = getenv("HPROFTEST_UNWIND_CHECK");
    check_mode = c && *c == '1';
    const char *m = getenv("HPROFTEST_UNWIND");
    plain_mode = m && strcmp(m, "libunwind") == 0;
    if (plain_mode)
        on = 0;
    __atomic_store_n(&thunks_global, on, __ATOMIC_RELAXED);
    return on;
}

static uw_thread *uw_get(void)
{
    uw_thread *st = uw;
    if (st)
        return st;
    hprof_interpose_resolve();
    void *p = mmap(NULL, sizeof *st, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    st = p;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        void *addr;
        size_t size;
        if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
            st->stack_lo = (uint64_t)(uintptr_t)addr;
            st->stack_hi = st->stack_lo + size;
        }
        pthread_attr_destroy(&attr);
    }
    st->thunks = thunks_enabled();
    hprof_thunk_tab = st->ra;
    uw = st;
    return st;
}

void unwind_thread_init(void)
{
    void *buf[4];
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    hprof_real_unw_backtrace(buf, 4);
    uw_get();
}

void unwind_process_start(void)
{
    learner_start();
}

/* ---- thunks ------------------------------------------------------------------ */

static inline uint64_t thunk_addr(int i)
{
    return (uint64_t)(uintptr_t)hprof_thunks_start + (uint64_t)i * THUNK_SIZE;
}

/* -1: not a thunk; -2: inside the thunk code but not at a thunk's start */
static inline int thunk_index(uint64_t v)
{
    uint64_t off = v - (uint64_t)(uintptr_t)hprof_thunks_start;
    if (off >= (uint64_t)THUNK_COUNT * THUNK_SIZE)
        return -1;
    if (off % THUNK_SIZE)
        return -2;
    return (int)(off / THUNK_SIZE);
}

static inline uint64_t current_sp(void)
{
    uint64_t sp;
    __asm__ volatile("movq %%rsp, %0" : "=r"(sp));
    return sp;
}

/* Puts every original return address back that is still live (its slot
 * above the current sp, on this stack, still holding its thunk). */
static void restore_all(uw_thread *st)
{
    uint64_t sp = current_sp();
    int64_t top = st->top;
    if (top > THUNK_COUNT)
        top = THUNK_COUNT;
    for (int64_t i = 0; i < top; i++) {
        uint64_t *s = st->slot[i];
        if (s && (uint64_t)(uintptr_t)s > sp && (uint64_t)(uintptr_t)s < st->stack_hi &&
            *s == thunk_addr((int)i))
            *s = st->ra[i];
        st->slot[i] = NULL;
    }
    st->top = 0;
    st->unknown = 1;
}

/* Before hprof's own libunwind walk: unlike a foreign walk it ends before
 * we return, so later samples may patch again. */
static void restore_for_own_walk(uw_thread *st)
{
    if (st)
        restore_all(st);
}

void unwind_restore_thunks(void)
{
    uw_thread *st = uw;
    if (!st)
        return;
    st->foreign = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (st->top > 0)
        restore_all(st);
}

/* ---- walking -------------------------------------------------------------------- */

enum { WK_OK, WK_END, WK_FAIL, WK_COMPLEX, WK_MISS };

typedef struct regs {
    uint64_t pc, sp, bp;
    int bp_ok;
} regs;

/* Steps from the frame whose recipe key is key to its caller. */
static inline int step(regs *r, uint64_t key, uint64_t hi, uint64_t **slot, int learn)
{
    const recipe *rc = key & RECIPE_EXACT ? recipe_find_pc(key & ~RECIPE_EXACT)
                       : learn ? recipe_find(key) : recipe_find_ra(key);
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
        if (a < r->sp || a + 8 > hi || (a & 7))
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
    int status;   /* WK_END (complete), WK_OK (stopped at thunk), WK_FAIL, WK_COMPLEX, WK_MISS */
    int thunk;    /* status WK_OK: thunk index of ips[n-1] */
    int inside;   /* a frame in hprof's own code (samples) */
    uint64_t miss;
} walk;

/* skip_own: MPI calls (leading frames in hprof's code are skipped); else a
 * sample (any frame in hprof's code sets inside). stop: stop at the first
 * thunk, else walk through them. first_slot: r is the state of a caller
 * already (r.pc its return address, read from first_slot), not of the
 * frame to step from. */
static void do_walk(uw_thread *st, walk *w, regs r, int max, int skip_own, int stop, int learn,
                    uint64_t *first_slot)
{
    uint64_t key = r.pc | RECIPE_EXACT;
    uint64_t hi = st->stack_hi;
    int own = skip_own, nown = 0;
    w->n = 0;
    w->inside = 0;
    w->thunk = -1;
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
            w->status = WK_OK;
            return;
        }
        key = pc;
    }
}

#define CAPTURE(r)                                                                   \
    __asm__ volatile("leaq 0(%%rip), %0\n\tmovq %%rsp, %1\n\tmovq %%rbp, %2"         \
                     : "=r"((r).pc), "=r"((r).sp), "=r"((r).bp))

/* ---- libunwind fallback: unwind/libunwind_walk.c ---- */

/* ---- paths as address lists ------------------------------------------------ */

static int in_stack(const uw_thread *st, uint64_t sp)
{
    return st && st->stack_hi && sp >= st->stack_lo && sp < st->stack_hi;
}

__attribute__((noinline)) int unwind_mpi_path(uint64_t *ips, int max)
{
    uw_thread *st = uw_get();
    regs r;
    CAPTURE(r);
    r.bp_ok = 1;
    if (!in_stack(st, r.sp)) {
        unwind_restore_thunks();
        return lu_mpi_path(ips, max);
    }
    walk w;
    do_walk(st, &w, r, max < UNWIND_MAX_FRAMES ? max : UNWIND_MAX_FRAMES, 1, 0, 1, NULL);
    if (w.status == WK_COMPLEX || w.status == WK_MISS) {
        restore_all(st);
        return lu_mpi_path(ips, max);
    }
    if (w.status != WK_END)
        return 0;
    memcpy(ips, w.ips, (size_t)w.n * sizeof *ips);
    return w.n;
}

int unwind_signal_path(uint64_t *ips, int max, const void *ucontext)
{
    uw_thread *st = uw;
    const ucontext_t *uc = ucontext;
    regs r = { (uint64_t)uc->uc_mcontext.gregs[REG_RIP], (uint64_t)uc->uc_mcontext.gregs[REG_RSP],
               (uint64_t)uc->uc_mcontext.gregs[REG_RBP], 1 };
    if (!in_stack(st, r.sp)) {
        unwind_restore_thunks();
        return lu_signal_path(ips, max, ucontext);
    }
    walk w;
    do_walk(st, &w, r, max < UNWIND_MAX_FRAMES ? max : UNWIND_MAX_FRAMES, 0, 0, 0, NULL);
    if (w.inside) {
        ips[0] = r.pc;
        return 1; /* the caller sees hprof's own code */
    }
    if (w.status == WK_COMPLEX || w.status == WK_MISS) {
        if (w.status == WK_MISS)
            learner_request(w.miss);
        restore_all(st);
        return lu_signal_path(ips, max, ucontext);
    }
    if (w.status != WK_END)
        return 0;
    memcpy(ips, w.ips, (size_t)w.n * sizeof *ips);
    return w.n;
}

/* ---- paths as tree nodes ------------------------------------------------------- */

/* Path of keys ips[n-1] (outermost) .. ips[0] under parent; the node of
 * ips[j] goes to nodes[j] when nodes is given. */
static uint32_t add_keys(cct *tree, uint32_t parent, const uint64_t *ips, int from, uint32_t *nodes)
{
    uint32_t node = parent;
    for (int j = from; j >= 0 && node != CCT_NONE; j--) {
        node = cct_child(tree, node, ips[j]);
        if (nodes)
            nodes[j] = node;
    }
    return node;
}

static uint32_t failed_node(cct *tree, const uint64_t *ips, int n)
{
    uint32_t node = cct_child(tree, CCT_ROOT, CCT_KEY_UNWIND_FAILED);
    if (node == CCT_NONE || n <= 0)
        return node;
    return add_keys(tree, node, ips, n - 1, NULL);
}

static void check_path(cct *tree, uint32_t node, const uint64_t *ref, int nref, int sample);

/* Self-check: the path of node against libunwind's walk of the same stack
 * (an MPI call's when ucontext is NULL, else a sample's). libunwind cannot
 * see through thunks: it walks with the original return addresses back in
 * place, and the thunks are put back after. */
static void check_against_libunwind(uw_thread *st, cct *tree, uint32_t node, const void *ucontext)
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
    int nref = ucontext ? lu_step_from_context(ref, UNWIND_MAX_FRAMES, ucontext)
                        : lu_mpi_path(ref, UNWIND_MAX_FRAMES);
    for (int64_t i = 0; i < top; i++)
        if (slots[i])
            *slots[i] = thunk_addr((int)i);
    check_path(tree, node, ref, nref, ucontext != NULL);
}

/* After a walk that reached its end or a thunk: the nodes, the visits, and
 * the thunks for the frames passed. first_patch: the first index whose slot
 * may be redirected (1 for MPI calls: slots[0] is the wrapper's; 2 for
 * samples: slots[1] belongs to the interrupted function). */
static uint32_t commit(uw_thread *st, cct *tree, walk *w, int first_patch, int sample, int patch)
{
    uint32_t nodes[UNWIND_MAX_FRAMES];
    int n = w->n;
    int base;       /* depth of ips[n-1] */
    int first_new;  /* ips[first_new..0] are new keys */
    uint32_t node;
    if (w->status == WK_OK) {
        base = w->thunk;
        node = st->node[base];
        nodes[n - 1] = node;
        first_new = n - 2;
    } else {
        base = 0;
        node = CCT_ROOT;
        first_new = n - 1;
    }
    if (sample)
        w->ips[0] += 1; /* an instruction, not a return address: key - 1 must lie inside it */
    node = add_keys(tree, node, w->ips, first_new, nodes);
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
     * redirected: it may be old), and not after the thunks were dropped. */
    int old_frame = w->status == WK_OK ? n - 2 : n; /* frames >= old_frame are old */
    if (!st->unknown)
        for (int j = sample ? 1 : 0; j < old_frame && j < n; j++)
            tree->nodes[nodes[j]].counter[CCT_VISITS]++;
    st->unknown = 0;
    /* Redirect the new frames' slots. */
    int top = -1;
    for (int j = first_new; j >= first_patch; j--) {
        int depth = base + (n - 1 - j);
        if (depth >= THUNK_COUNT)
            break;
        st->node[depth] = nodes[j];
        const recipe *rc = recipe_find(w->ips[j]);
        if (!rc || !(rc->flags & RECIPE_AFTER_CALL)) {
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
    else
        st->top = w->status == WK_OK ? base + 1 : 0;
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
    if (own_code(*slot) && thunk_index(*slot) < 0)
        return NULL;
    r->pc = *slot;
    r->sp = f + 16;
    r->bp = *(const uint64_t *)(uintptr_t)f;
    r->bp_ok = 1;
    return slot;
}

uint32_t unwind_mpi_node(cct *tree, const void *wrapper_frame, int *failed)
{
    *failed = 0;
    uw_thread *st = uw_get();
    learner_drain(0);
    if (st)
        st->foreign = 0; /* a foreign walk ended before any MPI call (unwind.h) */
    regs r;
    CAPTURE(r);
    r.bp_ok = 1;
    walk w;
    w.status = WK_COMPLEX;
    if (in_stack(st, r.sp) && !plain_mode) {
        uint64_t *first_slot = caller_of_wrapper(st, wrapper_frame, &r);
        do_walk(st, &w, r, UNWIND_MAX_FRAMES, !first_slot, st->thunks, 1, first_slot);
    }
    if (check_mode > 0)
        __atomic_fetch_add(&stat_status[w.status], 1, __ATOMIC_RELAXED);
    if (w.status == WK_COMPLEX || w.status == WK_MISS) {
        restore_for_own_walk(st);
        int n = lu_mpi_path(w.ips, UNWIND_MAX_FRAMES);
        if (n <= 0) {
            *failed = 1;
            return cct_reserve(tree, 1) == 0 ? failed_node(tree, NULL, 0) : CCT_NONE;
        }
        if (cct_reserve(tree, (uint32_t)n + 1) != 0)
            return CCT_NONE;
        return cct_path(tree, w.ips, n);
    }
    if (cct_reserve(tree, (uint32_t)w.n + 2) != 0)
        return CCT_NONE;
    if (w.status == WK_FAIL) {
        *failed = 1;
        return failed_node(tree, w.ips, w.n);
    }
    uint32_t node = commit(st, tree, &w, 1, 0, st->thunks);
    if (check_mode > 0 && node != CCT_NONE)
        check_against_libunwind(st, tree, node, NULL);
    return node;
}

uint32_t unwind_signal_node(cct *tree, const void *ucontext, int *failed, int *inside)
{
    *failed = 0;
    *inside = 0;
    uw_thread *st = uw;
    const ucontext_t *uc = ucontext;
    regs r = { (uint64_t)uc->uc_mcontext.gregs[REG_RIP], (uint64_t)uc->uc_mcontext.gregs[REG_RSP],
               (uint64_t)uc->uc_mcontext.gregs[REG_RBP], 1 };
    if (own_code(r.pc)) {
        *inside = 1;
        return CCT_NONE;
    }
    walk w;
    w.status = WK_COMPLEX;
    if (in_stack(st, r.sp) && !plain_mode)
        do_walk(st, &w, r, UNWIND_MAX_FRAMES, 0, st->thunks, 0, NULL);
    if (check_mode > 0)
        __atomic_fetch_add(&stat_status[5 + w.status], 1, __ATOMIC_RELAXED);
    if (w.status != WK_COMPLEX && w.inside) {
        *inside = 1;
        return CCT_NONE;
    }
    if (w.status == WK_COMPLEX || w.status == WK_MISS) {
        if (w.status == WK_MISS)
            learner_request(w.miss);
        restore_for_own_walk(st);
        int n = lu_signal_path(w.ips, UNWIND_MAX_FRAMES, ucontext);
        for (int i = 0; i < n; i++) {
            if (own_code(w.ips[i])) {
                *inside = 1;
                return CCT_NONE;
            }
        }
        if (n <= 0) {
            *failed = 1;
            return failed_node(tree, NULL, 0);
        }
        /* learn the rest of this path's recipes too (off the handler) */
        for (int i = 0; w.status == WK_MISS && i < n; i++) {
            uint64_t key = i == 0 ? w.ips[0] | RECIPE_EXACT : w.ips[i];
            if (!(i == 0 ? recipe_find_pc(w.ips[0]) : recipe_find(key)) && key != w.miss)
                learner_request(key);
        }
        w.ips[0] += 1;
        return cct_path(tree, w.ips, n);
    }
    if (w.status == WK_FAIL) {
        *failed = 1;
        if (w.n > 0)
            w.ips[0] += 1;
        return failed_node(tree, w.ips, w.n);
    }
    uint32_t node = commit(st, tree, &w, 2, 1, st->thunks && !st->foreign);
    if (check_mode > 0 && node != CCT_NONE)
        check_against_libunwind(st, tree, node, ucontext);
    return node;
}

/* ---- self-check (HPROFTEST_UNWIND_CHECK=1): every path against libunwind -------- */

static void check_path(cct *tree, uint32_t node, const uint64_t *ref, int nref, int sample)
{
    uint64_t got[UNWIND_MAX_FRAMES];
    int n = 0;
    for (uint32_t id = node; id != CCT_ROOT && id != CCT_NONE && n < UNWIND_MAX_FRAMES; id = tree->nodes[id].parent)
        got[n++] = tree->nodes[id].key;
    if (sample && n > 0)
        got[0] -= 1;
    __atomic_fetch_add(&check_compared, 1, __ATOMIC_RELAXED);
    int same = n == nref;
    for (int i = 0; same && i < n; i++)
        same = got[i] == ref[i];
    if (same)
        return;
    __atomic_fetch_add(&check_mismatched, 1, __ATOMIC_RELAXED);
    if (__atomic_fetch_add(&check_printed, 1, __ATOMIC_RELAXED) < 5) {
        char buf[4096];
        int len = snprintf(buf, sizeof buf, "hprof-unwind-check: %s mismatch\n  fast:", sample ? "sample" : "mpi");
        for (int i = 0; i < n && len < 3000; i++)
            len += snprintf(buf + len, sizeof buf - (size_t)len, " %lx", (unsigned long)got[i]);
        len += snprintf(buf + len, sizeof buf - (size_t)len, "\n  libunwind:");
        for (int i = 0; i < nref && len < 4000; i++)
            len += snprintf(buf + len, sizeof buf - (size_t)len, " %lx", (unsigned long)ref[i]);
        len += snprintf(buf + len, sizeof buf - (size_t)len, "\n");
        if (write(2, buf, (size_t)len) < 0)
            return;
    }
}

__attribute__((destructor)) static void check_report(void)
{
    if (check_mode > 0)
        fprintf(stderr, "hprof-unwind-check: pid %d compared %llu mismatched %llu recipes %llu "
                "mpi_fast %llu mpi_fallback %llu mpi_failed %llu samples_fast %llu samples_fallback %llu "
                "samples_failed %llu\n", (int)getpid(),
                (unsigned long long)check_compared, (unsigned long long)check_mismatched,
                (unsigned long long)recipe_count(), (unsigned long long)(stat_status[WK_OK] + stat_status[WK_END]),
                (unsigned long long)(stat_status[WK_COMPLEX] + stat_status[WK_MISS]),
                (unsigned long long)stat_status[WK_FAIL],
                (unsigned long long)(stat_status[5 + WK_OK] + stat_status[5 + WK_END]),
                (unsigned long long)(stat_status[5 + WK_COMPLEX] + stat_status[5 + WK_MISS]),
                (unsigned long long)stat_status[5 + WK_FAIL]);
}
#endif
