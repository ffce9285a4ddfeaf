#define _GNU_SOURCE
/*
 * restore.c - a thread's redirected return addresses put back, the thunk
 * stack's and its exactly measured calls' exit thunk alike: before
 * anything else walks or switches the stack (unwind_restore_thunks, called
 * by the interposers: lib/interpose/), and when the thread ends
 * (unwind_thread_end). See unwind.h. Above both thunk_stack.c and
 * exact_stack.c, which need not know each other's way back.
 */
#if defined(__x86_64__)
#include <sys/mman.h>

#include "unwind/exact_stack.h"
#include "unwind/python/py_runtime.h"
#include "unwind/thunk_stack.h"
#include "unwind/unwind.h"

void unwind_restore_thunks(void)
{
    uw_thread *st = uw_self;
    if (!st)
        return;
    st->foreign = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (st->top > 0)
        thunk_stack_restore(st);
    exact_stack_disarm(&st->ex, current_sp());
}

void unwind_thread_end(void)
{
    uw_thread *st = uw_self;
    if (!st)
        return;
    thunk_stack_restore(st);   /* no thunk may run once its table is gone */
    exact_stack_free(&st->ex); /* nor the exit thunk once the entries are */
    uw_self = NULL;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    hprof_thunk_tab = NULL;
    py_thread_free(st->py);
    munmap(st, sizeof *st);
}
#endif
