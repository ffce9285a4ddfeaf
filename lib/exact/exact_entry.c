#define _GNU_SOURCE
/*
 * exact_entry.c - the entry trampoline and its two halves (see
 * exact_entry.h). Compiled with -mgeneral-regs-only (Makefile): the fast
 * half runs with the function's vector arguments live and saves none.
 */
#if defined(__x86_64__)
#include "lib/exact/exact_entry.h"

#include <cpuid.h>
#include <stdlib.h>

#include "core/cct.h"
#include "core/clock.h"
#include "core/signal_context.h"
#include "unwind/entry_cache.h"
#include "unwind/exact_stack.h"
#include "lib/active.h"
#include "lib/sampling/sampler.h"
#include "lib/threads/thread.h"
#include "unwind/thunk_stack.h"
#include "unwind/unwind.h"

exact_fn *exact_fn_chunks[EXACT_FN_CHUNKS];

/* How the slow half keeps the vector registers: xsave of x87, SSE, AVX and
 * AVX-512 state into size bytes (64-aligned), or fxsave (512) without
 * XSAVE. Read by the assembly. */
static uint64_t xsave_size __attribute__((used)) = 512;
static int xsave_on __attribute__((used));

#define XSAVE_MASK 0xe7 /* x87, SSE, AVX, opmask, ZMM_Hi256, Hi16_ZMM */

/*
 * The frame the trampoline builds, from the entry's rsp up:
 *   pad, r11 (the id), r10, rax, r9, r8, rcx, rdx, rsi, rdi   (80 bytes)
 *   frame: caller's rbp
 *   frame + 8: the function's return address (its slot)
 * The entry jumped to the stub (no call: the processor's return-stack
 * predictions stay as the caller's call left them), so rsp is 8 off
 * 16-byte alignment there; the push of rbp aligns it for each call.
 */
__asm__(".text\n"
        ".p2align 4\n"
        ".globl hprof_exact_entry\n"
        ".hidden hprof_exact_entry\n"
        ".type hprof_exact_entry, @function\n"
        "hprof_exact_entry:\n"
        "  pushq %rbp\n"
        "  pushq %rdi\n"
        "  pushq %rsi\n"
        "  pushq %rdx\n"
        "  pushq %rcx\n"
        "  pushq %r8\n"
        "  pushq %r9\n"
        "  pushq %rax\n"
        "  pushq %r10\n"
        "  pushq %r11\n"
        "  pushq %r11\n"
        "  movl %r11d, %edi\n"
        "  leaq 80(%rsp), %rsi\n"
        "  call hprof_exact_enter_fast\n"
        "  testq %rax, %rax\n"
        "  jz 2f\n"
        "1:\n"
        "  movq %rax, %r11\n"
        "  leaq 16(%rsp), %rsp\n"
        "  popq %r10\n"
        "  popq %rax\n"
        "  popq %r9\n"
        "  popq %r8\n"
        "  popq %rcx\n"
        "  popq %rdx\n"
        "  popq %rsi\n"
        "  popq %rdi\n"
        "  leaq 8(%rsp), %rsp\n"
        "  btrq $63, %r11\n" /* EXACT_EXIT_SET: the exit thunk stands in the slot */
        "  jc hprof_exact_body\n"
        "  jmp *%r11\n" /* a call that passes through */
        /* the slow half: every vector register kept as well */
        "2:\n"
        "  pushq %rbx\n"
        "  movq %rsp, %rbx\n"
        "  subq xsave_size(%rip), %rsp\n"
        "  andq $-64, %rsp\n"
        "  cmpl $0, xsave_on(%rip)\n"
        "  je 3f\n"
        "  xorl %eax, %eax\n" /* the XSAVE header must be zero where xsave does not write */
        "  movq %rax, 512(%rsp)\n"
        "  movq %rax, 520(%rsp)\n"
        "  movq %rax, 528(%rsp)\n"
        "  movq %rax, 536(%rsp)\n"
        "  movq %rax, 544(%rsp)\n"
        "  movq %rax, 552(%rsp)\n"
        "  movq %rax, 560(%rsp)\n"
        "  movq %rax, 568(%rsp)\n"
        "  movl $0xe7, %eax\n"
        "  xorl %edx, %edx\n"
        "  xsave (%rsp)\n"
        "  jmp 4f\n"
        "3:\n"
        "  fxsave (%rsp)\n"
        "4:\n"
        "  movl 16(%rbx), %edi\n"
        "  leaq 88(%rbx), %rsi\n"
        "  call hprof_exact_enter_slow\n"
        "  movq %rax, 8(%rbx)\n" /* over the pad */
        "  cmpl $0, xsave_on(%rip)\n"
        "  je 5f\n"
        "  movl $0xe7, %eax\n"
        "  xorl %edx, %edx\n"
        "  xrstor (%rsp)\n"
        "  jmp 6f\n"
        "5:\n"
        "  fxrstor (%rsp)\n"
        "6:\n"
        "  movq %rbx, %rsp\n"
        "  popq %rbx\n"
        "  movq (%rsp), %rax\n"
        "  jmp 1b\n"
        ".size hprof_exact_entry, . - hprof_exact_entry\n");

_Static_assert(XSAVE_MASK == 0xe7, "the assembly's xsave mask");

void exact_entry_init(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
        return;          /* fxsave, 512 bytes */
    uint64_t size = 576; /* the legacy area and the header */
    for (unsigned i = 2; i < 8; i++) {
        if (!(XSAVE_MASK & (1u << i)) || !__get_cpuid_count(0xd, i, &a, &b, &c, &d) || !a)
            continue;
        if ((uint64_t)b + a > size)
            size = (uint64_t)b + a;
    }
    xsave_size = (size + 63) & ~63ull;
    xsave_on = 1;
}

int exact_fn_reserve(uint32_t first, int n)
{
    uint64_t last = (uint64_t)first + (uint64_t)(n > 0 ? n : 1) - 1;
    if (last / EXACT_FN_CHUNK >= EXACT_FN_CHUNKS)
        return -1;
    for (uint64_t c = first / EXACT_FN_CHUNK; c <= last / EXACT_FN_CHUNK; c++) {
        if (exact_fn_chunks[c])
            continue;
        exact_fn *p = calloc(EXACT_FN_CHUNK, sizeof *p);
        if (!p)
            return -1;
        __atomic_store_n(&exact_fn_chunks[c], p, __ATOMIC_RELEASE);
    }
    return 0;
}

/* ---- the two halves ------------------------------------------------------------ */

/* Per thread, the node of (call site, function) pairs met: the site is
 * the call site's node, as unwind_entry_site gives it. */
#define MEMO 64
static __thread struct memo {
    uint32_t site, id, node;
} memo[MEMO] __attribute__((tls_model("initial-exec")));

static inline struct memo *memo_of(uint32_t site, uint32_t id)
{
    return &memo[(site * 31u + id) & (MEMO - 1)];
}

/* Function id's node under the cached call site c, kept in c for the
 * next call from there; NULL: the slow path must find it. */
static inline cct_node *child_of(hprof_thread *t, struct entry_site *c, uint32_t id)
{
    if (__builtin_expect(c->fn == id && c->child, 1))
        return c->child;
    const struct memo *m = memo_of(c->node, id);
    if (c->node == CCT_NONE || m->site != c->node || m->id != id || !m->node)
        return NULL;
    c->fn = id;
    c->child = &t->tree.nodes[m->node];
    return c->child;
}

/* The call counts on node n, under the call site's node site (depth: its
 * frame's in the thunk stack): its activation goes on the thread's stack,
 * begun at the stamp now. EXACT_EXIT_SET when its return now goes through
 * the exit thunk, else 0. */
static inline uint64_t enter(uw_thread *st, exact_stack *x, cct_node *n, uint32_t id, uint64_t *frame,
                             uint32_t site, int depth, uint64_t now)
{
    n->counter[CCT_EXACT_VISITS]++;
    if (x->disarmed && !st->foreign)
        exact_stack_rearm(x, (uint64_t)(uintptr_t)frame);
    return exact_stack_push(x, frame + 1, n, id, now, site, depth) == 0 ? EXACT_EXIT_SET : 0;
}

/* The fast path's rare cases: a function of their own, and no copy of it
 * with fewer arguments (GCC's IPA-SRA makes one that takes a seventh on
 * the stack, which the fast path can then only call, not jump to, saving
 * registers for it). clang knows no noclone: there it is left out. */
#if defined(__clang__)
#define APART __attribute__((noinline))
#else
#define APART __attribute__((noinline, noclone))
#endif

/* The fast path's node found, but something on the thread's stack to be
 * done first (entries to close or rearm, a tail call's slot, no room) or
 * the clock not yet the TSC: enter() out of line, so that the fast path
 * itself makes no call. Ends the stack's busy span. */
static APART uint64_t enter_apart(uw_thread *st, const struct entry_site *c, cct_node *n, uint32_t id,
                                  uint64_t *frame, uint64_t resume)
{
    exact_stack *x = &st->ex;
    uint64_t set = enter(st, x, n, id, frame, c->node, c->caller.depth + 1, exact_stamp_now());
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    x->busy = 0;
    return resume | set;
}

/* The common case, one straight path with no call: the thread's record
 * (one thread-local read: its unwinding state hangs off it), the call
 * site's cache entry with the function's node in it, the clock, the
 * push. The thread's stack is busy from the cache's read on: a signal
 * handler's measured call meanwhile (whose slow path rewrites the cache)
 * is not measured. */
uint64_t hprof_exact_enter_fast(uint32_t id, uint64_t *frame)
{
    const exact_fn *f = exact_fn_at(id);
    if (!f->on || !exact_stack_recording)
        return f->resume;
    hprof_thread *t = hprof_self;
    uw_thread *st = t ? t->exact_uw : NULL;
    if (!st)
        return 0;
    exact_stack *x = &st->ex;
    if (t->depth || x->busy)
        return f->resume;
    x->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    struct entry_site *c = unwind_entry_site(st, frame);
    cct_node *n = c ? child_of(t, c, id) : NULL;
    if (!n) {
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        x->busy = 0;
        return 0;
    }
    if (__builtin_expect(x->disarmed || !exact_stack_push_plain(x, frame + 1) ||
                             !__atomic_load_n(&hprof_tsc.use_tsc, __ATOMIC_ACQUIRE),
                         0))
        return enter_apart(st, c, n, id, frame, f->resume);
    uint64_t now = hprof_read_tsc(); /* a stamp of the TSC's kind (exact_stamp_now) */
    n->counter[CCT_EXACT_VISITS]++;
    entry_site_push(x, c, frame + 1, n, now);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    x->busy = 0;
    return f->resume | EXACT_EXIT_SET;
}

/* frame + 1 lies on the thread's own stack (or its bounds are unknown). */
static int on_own_stack(const exact_stack *x, const uint64_t *frame)
{
    uint64_t s = (uint64_t)(uintptr_t)(frame + 1);
    return !x->stack_hi || (s >= x->stack_lo && s < x->stack_hi);
}

/* The function's node on this call's path, and *site, *depth as
 * enter() takes them; memo'd when the walk succeeded (its site is what
 * unwind_entry_site tells next time). A walk that may run in a signal
 * handler learns no recipe: the handler may have interrupted malloc. */
static uint32_t node_by_walk(hprof_thread *t, const exact_fn *f, uint32_t id, uint64_t *frame, uint32_t *site,
                             int *depth)
{
    int failed;
    *site = unwind_entry_node(&t->tree, frame, &failed, depth, !signal_context_maybe(frame[1]));
    uint32_t node =
        *site != CCT_NONE && cct_reserve(&t->tree, 1) == 0 ? cct_child(&t->tree, *site, f->key) : CCT_NONE;
    if (failed) {
        *depth = -1;
        t->exact_failed++;
    }
    if (node == CCT_NONE || node == 0) {
        *site = CCT_NONE;
        return t->tree.full_node;
    }
    if (!failed)
        *memo_of(*site, id) = (struct memo){ *site, id, node };
    return node;
}

/* The activation begins at the slow half's start: what it does before the
 * push (a walk, registering the thread) makes system calls, where a
 * sampling signal pending since the last one is delivered; that time,
 * left out, was in the caller's span of the call but in no exact time
 * (a third to a half of a short function's time at 10 kHz). */
uint64_t hprof_exact_enter_slow(uint32_t id, uint64_t *frame)
{
    uint64_t now = exact_stamp_now();
    const exact_fn *f = exact_fn_at(id);
    if (!f->on || !exact_stack_recording || !hprof_active)
        return f->resume;
    hprof_thread *t = hprof_self;
    if (!t || !uw_self) {
        /* registering the thread allocates: not in a signal handler */
        if (signal_context_maybe(frame[1])) {
            hprof_thread_unmet_visit();
            return f->resume;
        }
        t = sampler_thread_enter();
    }
    if (!t || t->depth)
        return f->resume;
    exact_stack *x = exact_stack_mine();
    uw_thread *st = uw_self;
    if (!x || !st || x->busy || !on_own_stack(x, frame))
        return f->resume;
    t->exact_uw = st;
    t->depth++; /* MPI calls and exact ones from a signal handler stay out meanwhile */
    x->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    uint32_t site;
    int depth;
    uint32_t node = node_by_walk(t, f, id, frame, &site, &depth);
    uint64_t set = enter(st, x, &t->tree.nodes[node], id, frame, site, depth, now);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    x->busy = 0;
    t->depth--;
    return f->resume | set;
}
#endif
