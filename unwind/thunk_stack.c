#define _GNU_SOURCE
/*
 * thunk_stack.c - see thunk_stack.h.
 */
#if defined(__x86_64__)
#include "unwind/thunk_stack.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/config.h"
#include "unwind/own_walk.h"
#include "unwind/unwind_check.h"

/* The thunk code finds top and epoch before ra[] (thunks_x86_64.c). */
_Static_assert(offsetof(uw_thread, ra) == offsetof(uw_thread, top) + 8 &&
                   offsetof(uw_thread, top) == offsetof(uw_thread, epoch) + 8,
               "uw_thread: epoch, top, ra[]");

__thread uw_thread *uw_self __attribute__((tls_model("initial-exec")));

static int thunks_global = -1; /* -1: not decided yet */
int uw_check_mode = -1;
int uw_plain_mode;

int uw_shadow_stack_active(void)
{
    uint64_t ssp = 0;
    /* rdsspq is a no-op where CET shadow stacks are not enabled */
    __asm__ volatile("rdsspq %0" : "+r"(ssp));
    return ssp != 0;
}

static int thunks_forbidden;

int uw_thunks_forbid(void)
{
    int was = hprof_config.thunks && !thunks_forbidden;
    thunks_forbidden = 1;
    return was;
}

static int thunks_enabled(void)
{
    int on = __atomic_load_n(&thunks_global, __ATOMIC_RELAXED);
    if (on >= 0)
        return on;
    on = hprof_config.thunks && !thunks_forbidden && !uw_shadow_stack_active();
    uw_check_mode = unwind_check_wanted();
    const char *m = getenv("HPROFTEST_UNWIND");
    uw_plain_mode = m && strcmp(m, "libunwind") == 0;
    if (uw_plain_mode)
        on = 0;
    __atomic_store_n(&thunks_global, on, __ATOMIC_RELAXED);
    return on;
}

uw_thread *thunk_stack_create(void)
{
    uw_thread *st = uw_self;
    if (st)
        return st;
    own_walk_resolve();
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
    st->caller_exact = -1;
    hprof_thunk_tab = st->ra;
    uw_self = st;
    return st;
}

/* Below the current sp too: a frame there may live on, on a part of the
 * stack the program switched away from (a coroutine's stack on the
 * thread's own, switched by the program's own code); its record goes now,
 * and its thunk must not outlive it. Anything else there is gone.
 * Every slot put back is kept as released, above the sp as below: the
 * next walk may run on another stack (a coroutine's) and clear unknown
 * without meeting these frames, which a later walk would then take for
 * new. */
void thunk_stack_restore(uw_thread *st)
{
    int64_t top = st->top;
    if (top > THUNK_COUNT)
        top = THUNK_COUNT;
    for (int64_t i = 0; i < top; i++) {
        uint64_t *s = st->slot[i];
        uint64_t a = (uint64_t)(uintptr_t)s;
        if (s && a >= st->stack_lo && a < st->stack_hi && *s == thunk_addr((int)i)) {
            *s = st->ra[i];
            thunk_stack_released(st, s);
        }
        st->slot[i] = NULL;
    }
    st->top = 0;
    st->epoch++;
    st->unknown = 1;
}
#endif
