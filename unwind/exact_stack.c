#define _GNU_SOURCE
/*
 * exact_stack.c - see exact_stack.h. Compiled with -mgeneral-regs-only
 * (Makefile): the exit thunk calls exact_stack_leave with the returning
 * function's vector and x87 registers live. The exit thunk is here too:
 * it and exact_stack_leave are one piece (each needs the other).
 */
#if defined(__x86_64__)
#include "unwind/exact_stack.h"

#include <sys/mman.h>
#include <unistd.h>

#include "core/clock.h"
#include "unwind/thunk_stack.h"
#include "unwind/thunks.h"

/* Entries a thread may have open at once: recursion deeper than this
 * runs unmeasured below it (exact_stack.full). 64 bytes each, mapped
 * without reserve: the pages of the depth reached are touched. */
#define EXACT_STACK_CAP (1u << 17)

volatile int exact_stack_recording;

/* On the thread's own stack (or its bounds unknown). */
static inline int on_stack(const exact_stack *x, uint64_t a)
{
    return !x->stack_hi || (a >= x->stack_lo && a < x->stack_hi);
}

exact_stack *exact_stack_peek(void)
{
    uw_thread *st = uw_self;
    return st ? &st->ex : NULL;
}

exact_stack *exact_stack_mine(void)
{
    uw_thread *st = thunk_stack_get();
    if (!st)
        return NULL;
    exact_stack *x = &st->ex;
    if (!x->e) {
        void *p = mmap(NULL, (size_t)EXACT_STACK_CAP * sizeof(exact_entry), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        x->stack_lo = st->stack_lo;
        x->stack_hi = st->stack_hi;
        x->cap = EXACT_STACK_CAP;
        x->e = p;
    }
    return x;
}

/* Entry k's call ends after incl ns: its time to its node, and to its
 * caller's account of time spent in exact callees. */
static inline __attribute__((always_inline)) void close_entry_after(exact_stack *x, uint32_t k, uint64_t incl)
{
    exact_entry *e = &x->e[k];
    cct_node *n = e->node;
    if (n && exact_stack_recording) {
        uint64_t inner = e->inner_ns < incl ? e->inner_ns : incl;
        n->counter[CCT_EXACT_NS] += incl;
        n->counter[CCT_EXACT_SELF_NS] += incl - inner;
    }
    e->node = NULL;
    if (k > 0)
        e[-1].inner_ns += incl;
}

/* Entry k's call ends at the stamp now. */
static inline __attribute__((always_inline)) void close_entry(exact_stack *x, uint32_t k, uint64_t now)
{
    close_entry_after(x, k, hprof_stamp_span_ns(hprof_stamp_kind(), x->e[k].t0, now));
}

static void forget_orphan(exact_stack *x, uint32_t i)
{
    x->norphans--;
    for (; i < x->norphans; i++)
        x->orphan[i] = x->orphan[i + 1];
}

/* Room for one more orphan: those whose slot no longer holds the exit
 * thunk are gone for good (a call or data took the place); then the
 * oldest goes. */
static void orphan_room(exact_stack *x)
{
    for (uint32_t i = x->norphans; i-- > 0;)
        if (*x->orphan[i].slot != exact_exit_addr())
            forget_orphan(x, i);
    if (x->norphans == EXACT_ORPHANS)
        forget_orphan(x, 0);
}

/* Entry e was closed with the exit thunk in its slot: its return, if
 * its frame was not gone after all, must still find the way back. Only
 * slots on the thread's own stack, which stays mapped, are read. */
static void keep_orphan(exact_stack *x, const exact_entry *e)
{
    uint64_t s = (uint64_t)(uintptr_t)e->slot;
    if (!x->stack_hi || !on_stack(x, s) || e->armed != EXACT_ARMED || *e->slot != exact_exit_addr())
        return;
    if (x->norphans == EXACT_ORPHANS)
        orphan_room(x);
    x->orphan[x->norphans++] = (exact_orphan){ e->slot, e->ra };
}

/* The orphan whose slot is slot (the newest such), or -1. */
static int orphan_index(const exact_stack *x, const uint64_t *slot)
{
    for (uint32_t i = x->norphans; i-- > 0;)
        if (x->orphan[i].slot == slot)
            return (int)i;
    return -1;
}

/* Pops the top entry, left without its return: closed at now. Its frame
 * was taken for gone by the slots' order (orphan: it may not be) or is
 * certainly gone (a jump to a frame above it). */
static __attribute__((noinline)) void drop_top(exact_stack *x, uint64_t now, int orphan)
{
    uint32_t k = x->top - 1;
    close_entry(x, k, now);
    if (x->e[k].armed == EXACT_DISARMED)
        x->disarmed--;
    if (orphan)
        keep_orphan(x, &x->e[k]);
    x->abandoned++;
    x->top = k;
}

int exact_stack_push(exact_stack *x, uint64_t *slot, cct_node *node, uint32_t fn, uint64_t now, uint32_t site,
                     int depth)
{
    uint64_t s = (uint64_t)(uintptr_t)slot;
    /* A measured function that tail-called this one handed it its slot,
     * holding the exit thunk: the return address is the one it stood for. */
    uint64_t ra = *slot;
    if (ra == exact_exit_addr() && !(ra = exact_stack_translate(x, slot)))
        return -1; /* cannot happen: an armed slot has its entry or its orphan */
    int o = x->norphans ? orphan_index(x, slot) : -1;
    if (o >= 0)
        forget_orphan(x, o); /* a live frame holds the slot now */
    /* a frame whose slot lies at or below the new one's is gone */
    while (x->top > 0 && (uint64_t)(uintptr_t)x->e[x->top - 1].slot <= s)
        drop_top(x, now, 1);
    if (x->top == x->cap) {
        x->full++;
        *slot = ra; /* the exit thunk a tail-calling one left there has no entry now */
        return -1;
    }
    exact_entry *e = &x->e[x->top];
    e->slot = slot;
    e->ra = ra;
    e->t0 = now;
    e->inner_ns = 0;
    e->node = node;
    e->fn = fn;
    e->armed = EXACT_ARMED;
    e->site = site;
    e->depth = depth;
    x->top++;
    *slot = exact_exit_addr();
    return 0;
}

/* Where a live return takes us when neither its entry nor its orphan is
 * there: more frames were taken for gone and left live than orphans are
 * kept. There is no return address to go to. */
static void lost_return(void)
{
    static const char msg[] = "hprof: an exactly measured function returned through a slot hprof has no "
                              "record of (a stack switch it did not see); cannot continue\n";
    ssize_t rc = write(2, msg, sizeof msg - 1);
    (void)rc;
    _exit(134);
}

/* A frame taken for gone returns after all (it lay where the thread's
 * stack was switched away from): its call was closed then; the entries
 * below its slot are gone now. */
static uint64_t orphan_return(uw_thread *st, exact_stack *x, const uint64_t *slot)
{
    int o = x ? orphan_index(x, slot) : -1;
    if (o < 0)
        lost_return();
    uint64_t ra = x->orphan[o].ra;
    x->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    forget_orphan(x, (uint32_t)o);
    while (x->top > 0 && x->e[x->top - 1].slot < slot)
        drop_top(x, exact_stamp_now(), 1);
    st->epoch++;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    x->busy = 0;
    return ra;
}

/* A return whose entry is not the top one: newer activations were left
 * without their return; or one with no entry (an orphan's). */
static __attribute__((noinline)) uint64_t leave_below_top(uw_thread *st, exact_stack *x, const uint64_t *slot,
                                                          uint64_t now)
{
    uint32_t k = x ? x->top : 0;
    while (k > 0 && !(x->e[k - 1].slot == slot && x->e[k - 1].armed == EXACT_ARMED))
        k--;
    if (k == 0)
        return orphan_return(st, x, slot);
    k--;
    x->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    while (x->top > k + 1)
        drop_top(x, now, 1); /* newer activations left without their return */
    uint64_t ra = x->e[k].ra;
    close_entry(x, k, now);
    x->top = k;
    st->epoch++;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    x->busy = 0;
    return ra;
}

/* The exit at the stamp now, of the clock's kind: the common case, the
 * newest activation returning, inline; every other a call. */
static inline __attribute__((always_inline)) uint64_t leave_at(uint64_t sp, int kind, uint64_t now)
{
    uw_thread *st = uw_self;
    const uint64_t *slot = (const uint64_t *)(uintptr_t)(sp - 8);
    exact_stack *x = st ? &st->ex : NULL;
    uint32_t k = x ? x->top : 0;
    if (__builtin_expect(k == 0 || x->e[k - 1].slot != slot || x->e[k - 1].armed != EXACT_ARMED, 0))
        return leave_below_top(st, x, slot, now);
    k--; /* the common case: the newest activation returns */
    x->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    uint64_t ra = x->e[k].ra;
    close_entry_after(x, k, hprof_stamp_span_ns(kind, x->e[k].t0, now));
    x->top = k;
    /* a frame returned: promises about the thunks hold no longer (unwind.h) */
    st->epoch++;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    x->busy = 0;
    return ra;
}

/* An exit before the TSC's calibration: the clock is a call, so that
 * exact_stack_leave keeps no register across one. */
static __attribute__((noinline)) uint64_t leave_on_gettime(uint64_t sp)
{
    return leave_at(sp, HPROF_STAMP_NS, hprof_gettime_ns());
}

uint64_t exact_stack_leave(uint64_t sp)
{
    if (__builtin_expect(hprof_stamp_kind() != HPROF_STAMP_TSC, 0))
        return leave_on_gettime(sp);
    return leave_at(sp, HPROF_STAMP_TSC, hprof_read_tsc());
}

int exact_stack_index_below(const exact_stack *x, const uint64_t *slot, int below)
{
    if (!x || below > (int)x->top)
        below = x ? (int)x->top : 0;
    for (int k = below; k-- > 0;)
        if (x->e[k].slot == slot && x->e[k].armed == EXACT_ARMED)
            return k;
    return -1;
}

int exact_stack_index(const exact_stack *x, const uint64_t *slot)
{
    return exact_stack_index_below(x, slot, x ? (int)x->top : 0);
}

uint64_t exact_stack_translate(const exact_stack *x, const uint64_t *slot)
{
    int k = exact_stack_index(x, slot);
    if (k >= 0)
        return x->e[k].ra;
    int o = x ? orphan_index(x, slot) : -1;
    return o >= 0 ? x->orphan[o].ra : 0;
}

void exact_stack_unwind_to(exact_stack *x, uint64_t sp, uint64_t now)
{
    if (!x || !on_stack(x, sp))
        return;
    while (x->top > 0 && (uint64_t)(uintptr_t)x->e[x->top - 1].slot < sp)
        drop_top(x, now, 0);
}

/* Orphans' slots get their return addresses back for good (their calls
 * are closed): a walk of the program's goes through them. */
static void disarm_orphans(exact_stack *x, uint64_t sp)
{
    for (uint32_t i = x->norphans; i-- > 0;) {
        uint64_t *slot = x->orphan[i].slot;
        if ((uint64_t)(uintptr_t)slot > sp && on_stack(x, (uint64_t)(uintptr_t)slot)) {
            if (*slot == exact_exit_addr())
                *slot = x->orphan[i].ra;
            forget_orphan(x, i);
        }
    }
}

void exact_stack_disarm(exact_stack *x, uint64_t sp)
{
    if (x && x->norphans)
        disarm_orphans(x, sp);
    for (uint32_t k = 0; x && k < x->top; k++) {
        exact_entry *e = &x->e[k];
        uint64_t s = (uint64_t)(uintptr_t)e->slot;
        if (e->armed != EXACT_DISARMED && s > sp && on_stack(x, s) && *e->slot == exact_exit_addr()) {
            *e->slot = e->ra;
            if (e->armed == EXACT_ARMED)
                x->disarmed++;
            e->armed = EXACT_DISARMED;
        }
    }
}

void exact_stack_disarm_own(exact_stack *x, uint64_t sp)
{
    for (uint32_t k = 0; x && k < x->top; k++) {
        exact_entry *e = &x->e[k];
        uint64_t s = (uint64_t)(uintptr_t)e->slot;
        if (e->armed == EXACT_ARMED && s > sp && on_stack(x, s) && *e->slot == exact_exit_addr()) {
            *e->slot = e->ra;
            e->armed = EXACT_OWN_WALK;
        }
    }
}

void exact_stack_rearm_own(exact_stack *x)
{
    for (uint32_t k = 0; x && k < x->top; k++) {
        exact_entry *e = &x->e[k];
        if (e->armed == EXACT_OWN_WALK) {
            *e->slot = exact_exit_addr();
            e->armed = EXACT_ARMED;
        }
    }
}

void exact_stack_rearm(exact_stack *x, uint64_t sp)
{
    uw_thread *st = uw_self;
    for (uint32_t k = 0; x && x->disarmed > 0 && k < x->top; k++) {
        exact_entry *e = &x->e[k];
        uint64_t s = (uint64_t)(uintptr_t)e->slot;
        if (e->armed != EXACT_DISARMED || s <= sp || !on_stack(x, s))
            continue;
        uint64_t v = *e->slot;
        int d = thunk_index(v);
        if (v != e->ra && !(st && d >= 0 && d < st->top && st->slot[d] == e->slot && st->ra[d] == e->ra))
            continue; /* not the activation it stood for */
        if (v != e->ra)
            st->slot[d] = NULL; /* a walk redirected it meanwhile: the exit takes it back */
        *e->slot = exact_exit_addr();
        e->armed = EXACT_ARMED;
        x->disarmed--;
    }
}

void exact_stack_close_all(exact_stack *x, uint64_t now_ns, uint64_t sp, int disarm)
{
    if (!x || !x->e)
        return;
    int kind = hprof_stamp_kind();
    for (uint32_t k = x->top; k-- > 0;) {
        uint64_t t0 = hprof_stamp_ns(kind, x->e[k].t0);
        close_entry_after(x, k, now_ns > t0 ? now_ns - t0 : 0);
    }
    if (disarm)
        exact_stack_disarm(x, sp);
}

static struct {
    uint64_t lo, hi;
} code_blocks[EXACT_CODE_BLOCKS];
static int ncode_blocks;

int exact_code_add(uint64_t lo, uint64_t hi)
{
    int n = ncode_blocks;
    if (n == EXACT_CODE_BLOCKS)
        return -1;
    code_blocks[n].lo = lo;
    code_blocks[n].hi = hi;
    __atomic_store_n(&ncode_blocks, n + 1, __ATOMIC_RELEASE);
    return 0;
}

static int in_blocks(uint64_t pc)
{
    int n = __atomic_load_n(&ncode_blocks, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++)
        if (pc >= code_blocks[i].lo && pc < code_blocks[i].hi)
            return 1;
    return 0;
}

int exact_code_at(uint64_t pc)
{
    if (!__atomic_load_n(&ncode_blocks, __ATOMIC_RELAXED))
        return 0;
    if (in_blocks(pc))
        return 1;
    /* a patched entry's jump (e9 rel32) into a stub; an instruction that
     * starts with e9 is a jump, its 5 bytes are mapped */
    const unsigned char *p = (const unsigned char *)(uintptr_t)pc;
    if (p[0] != 0xe9)
        return 0;
    int32_t rel;
    __builtin_memcpy(&rel, p + 1, 4);
    return in_blocks(pc + 5 + (uint64_t)(int64_t)rel);
}

void exact_stack_free(exact_stack *x)
{
    if (!x || !x->e)
        return;
    exact_stack_close_all(x, hprof_now_ns(), current_sp(), 1);
    munmap(x->e, (size_t)x->cap * sizeof(exact_entry));
    x->e = NULL;
    x->top = x->cap = 0;
    x->disarmed = 0;
}

/* The way into a measured function's body, and its exit thunk. The entry
 * trampoline (lib/exact/exact_entry.c) jumps to hprof_exact_body with rsp
 * at the function's slot, which holds hprof_exact_exit, and r11 the body's
 * address. The body is entered by a call whose return address is the exit
 * thunk, popped at once: the processor's return-stack prediction then holds
 * the exit thunk, so the function's return to it is predicted, and the exit
 * thunk's return to the caller takes the entry the caller's own call
 * pushed. No mispredicted return a visit.
 *
 * The exit thunk. A measured function returns here instead of to its
 * caller: rsp is its slot + 8, its return values are in rax, rdx, xmm0,
 * xmm1 (and st0, st1). exact_stack_leave (general registers only) pops the
 * activation and gives the original return address, which the thunk
 * returns to with rsp as the return left it. It touches r11 (free at a
 * return), and the caller-saved registers no return value lives in. */
__asm__(".text\n"
        ".p2align 4\n"
        ".globl hprof_exact_body\n"
        ".hidden hprof_exact_body\n"
        ".type hprof_exact_body, @function\n"
        "hprof_exact_body:\n"
        "  call hprof_exact_exit_pop\n" /* the call's return address is hprof_exact_exit */
        ".globl hprof_exact_exit\n"
        ".hidden hprof_exact_exit\n"
        "hprof_exact_exit:\n"
        "  pushq %rax\n"
        "  pushq %rdx\n"
        "  leaq 16(%rsp), %rdi\n"    /* the sp after the return */
        "  call exact_stack_leave\n" /* rsp is 16-byte aligned here: the return left slot + 8 */
        "  movq %rax, %r11\n"
        "  popq %rdx\n"
        "  popq %rax\n"
        "  pushq %r11\n"
        "  ret\n"
        "hprof_exact_exit_pop:\n"
        "  leaq 8(%rsp), %rsp\n"
        "  jmp *%r11\n"
        ".size hprof_exact_body, . - hprof_exact_body\n");
#endif
