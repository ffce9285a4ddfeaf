#define _GNU_SOURCE
#undef _FORTIFY_SOURCE /* longjmp is defined here under its own name */
/*
 * unwinders.c - everything that walks or leaves the stack behind hprof's
 * back gets the original return addresses back first (the thunk stack,
 * unwind/unwind_x86_64.c): the C++ unwinder (_Unwind_RaiseException, _Resume,
 * _Resume_or_Rethrow, _ForcedUnwind, _Backtrace), glibc's backtrace() (it
 * reaches libgcc through its own dlopen, not through these symbols),
 * libunwind called by the program (unw_backtrace, unw_init_local),
 * pthread_exit, and stack switches (swapcontext, setcontext). longjmp needs
 * nothing: a later walk finds the frames it left and ignores the stale
 * entries.
 *
 * Exactly measured calls (unwind/exact_stack.h) go the same way, and come back:
 * walks that return (backtrace(), unw_backtrace, _Unwind_Backtrace) put
 * the exit thunk back in the slots still live after them; an exception's
 * catch (__cxa_begin_catch) closes, at the catch, the calls the exception
 * left and puts the exit thunk back in the others; longjmp and its kin
 * close the calls below the frame they jump to, at the jump (the target's
 * stack pointer, read from the jmp_buf as glibc mangles it; where it does
 * not look like a frame of this thread's stack, the calls are found gone
 * later, by their slots).
 *
 * libunwind entered during hprof's own walk on the same thread (a signal
 * handler nested in it) is refused: see unwind/own_walk.h.
 */
#if defined(__x86_64__)
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/own_code.h"
#include "core/real_dl.h"
#include "lib/interpose/interpose.h"
#include "lib/threads/thread.h"
#include "unwind/exact_stack.h"
#include "unwind/own_walk.h"
#include "unwind/switch_code.h"
#include "unwind/thunk_stack.h"
#include "unwind/unwind.h"

/* libgcc's <unwind.h>: the few of its types used here */
typedef int _Unwind_Reason_Code;
struct _Unwind_Exception;
typedef void *_Unwind_Stop_Fn;
typedef void *_Unwind_Trace_Fn;

#define EXPORT __attribute__((visibility("default")))

typedef _Unwind_Reason_Code (*raise_fn)(struct _Unwind_Exception *);
typedef void (*resume_fn)(struct _Unwind_Exception *);
typedef _Unwind_Reason_Code (*forced_fn)(struct _Unwind_Exception *, _Unwind_Stop_Fn, void *);
typedef _Unwind_Reason_Code (*bt_fn)(_Unwind_Trace_Fn, void *);
typedef int (*backtrace_fn)(void **, int);
typedef int (*swap_fn)(ucontext_t *, const ucontext_t *);
typedef int (*set_fn)(const ucontext_t *);
typedef void (*exit_fn)(void *);
typedef int (*init_local_fn)(void *, void *);
typedef int (*init_local2_fn)(void *, void *, int);
typedef void *(*begin_catch_fn)(void *);
typedef void (*jump_fn)(struct __jmp_buf_tag *, int);

static void *real_raise, *real_resume, *real_rethrow, *real_forced, *real_ubt, *real_backtrace, *real_swap,
    *real_set, *real_exit, *real_unw_bt, *real_init_local, *real_init_local2, *real_begin_catch,
    *real_longjmp, *real__longjmp, *real_siglongjmp, *real_longjmp_chk, *real_get_ip;

static void *next(void **cache, const char *name)
{
    void *p = __atomic_load_n(cache, __ATOMIC_RELAXED);
    if (!p) {
        p = hprof_dlsym(RTLD_NEXT, name);
        if (!p)
            abort(); /* the program called it, so it exists further down */
        __atomic_store_n(cache, p, __ATOMIC_RELAXED);
    }
    return p;
}

/* Resolved when the measurement starts (hprof_interpose_resolve), so
 * that calls from signal handlers (backtrace() in a crash handler) need no
 * dlsym; before that, on first use. No constructor: a process that never
 * calls MPI_Init runs untouched. */
void hprof_interpose_resolve(void)
{
    static int done;
    if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
        return;
    real_raise = hprof_dlsym(RTLD_NEXT, "_Unwind_RaiseException");
    real_resume = hprof_dlsym(RTLD_NEXT, "_Unwind_Resume");
    real_rethrow = hprof_dlsym(RTLD_NEXT, "_Unwind_Resume_or_Rethrow");
    real_forced = hprof_dlsym(RTLD_NEXT, "_Unwind_ForcedUnwind");
    real_ubt = hprof_dlsym(RTLD_NEXT, "_Unwind_Backtrace");
    real_backtrace = hprof_dlsym(RTLD_NEXT, "backtrace");
    real_swap = hprof_dlsym(RTLD_NEXT, "swapcontext");
    real_set = hprof_dlsym(RTLD_NEXT, "setcontext");
    switch_code_add(real_swap); /* a sample inside them is in neither context */
    switch_code_add(real_set);
    switch_code_add_module(real_raise); /* the unwinder's last step loads a landing pad's stack */
    real_exit = hprof_dlsym(RTLD_NEXT, "pthread_exit");
    real_unw_bt = hprof_dlsym(RTLD_NEXT, "unw_backtrace");
    real_init_local = hprof_dlsym(RTLD_NEXT, "_ULx86_64_init_local");
    real_init_local2 = hprof_dlsym(RTLD_NEXT, "_ULx86_64_init_local2");
    real_begin_catch = hprof_dlsym(RTLD_NEXT, "__cxa_begin_catch");
    real_get_ip = hprof_dlsym(RTLD_NEXT, "_Unwind_GetIP");
    real_longjmp = hprof_dlsym(RTLD_NEXT, "longjmp");
    real__longjmp = hprof_dlsym(RTLD_NEXT, "_longjmp");
    real_siglongjmp = hprof_dlsym(RTLD_NEXT, "siglongjmp");
    real_longjmp_chk = hprof_dlsym(RTLD_NEXT, "__longjmp_chk");
}

/* After a walk that returns: the exit thunks back where their calls are
 * still under way (exact_stack.h). */
static void rearm_exact(void)
{
    exact_stack *x = exact_stack_peek();
    if (x && x->disarmed)
        exact_stack_rearm(x, current_sp());
}

/* A cursor made by anyone but hprof's own walk: the thunks go first; and
 * while hprof's walk runs on this thread (a handler nested in it) libunwind
 * is not entered again (unwind/own_walk.h). */
static int foreign_init_local(void)
{
    if (own_walk_state == OWN_ENTERING) {
        own_walk_state = OWN_INSIDE;
        return 0;
    }
    if (own_walk_state == OWN_INSIDE)
        return -1;
    unwind_restore_thunks();
    return 0;
}

EXPORT _Unwind_Reason_Code _Unwind_RaiseException(struct _Unwind_Exception *e)
{
    unwind_restore_thunks();
    return ((raise_fn)next(&real_raise, "_Unwind_RaiseException"))(e);
}

EXPORT void _Unwind_Resume(struct _Unwind_Exception *e)
{
    unwind_restore_thunks();
    ((resume_fn)next(&real_resume, "_Unwind_Resume"))(e);
    abort();
}

EXPORT _Unwind_Reason_Code _Unwind_Resume_or_Rethrow(struct _Unwind_Exception *e)
{
    unwind_restore_thunks();
    return ((raise_fn)next(&real_rethrow, "_Unwind_Resume_or_Rethrow"))(e);
}

EXPORT _Unwind_Reason_Code _Unwind_ForcedUnwind(struct _Unwind_Exception *e, _Unwind_Stop_Fn stop, void *arg)
{
    unwind_restore_thunks();
    return ((forced_fn)next(&real_forced, "_Unwind_ForcedUnwind"))(e, stop, arg);
}

/* The walkers below return, so the exit thunks of the exact calls still
 * under way go back in after them (rearm_exact). Then the walker is not
 * tail-called: the walk sees hprof's frames too, which the program must
 * not, so they are left out. Without exact calls, a tail call. */
static int exact_calls_out(void)
{
    exact_stack *x = exact_stack_peek();
    return x && x->disarmed;
}

/* hprof's frames at the start of a walk made from here (this file's,
 * whatever the compiler inlined) */
#define OWN_LEADING 4

/* A walk of up to size frames into buffer by real, the leading frames in
 * hprof's code left out; size up to 1024 (above, they stay). */
static int walk_without_own_frames(backtrace_fn real, void **buffer, int size)
{
    if (size <= 0 || size > 1024)
        return real(buffer, size);
    void *tmp[size + OWN_LEADING];
    int n = real(tmp, size + OWN_LEADING), skip = 0;
    while (skip < n && skip < OWN_LEADING && own_code((uint64_t)(uintptr_t)tmp[skip]))
        skip++;
    int k = n - skip < size ? n - skip : size;
    for (int i = 0; i < k; i++)
        buffer[i] = tmp[skip + i];
    return k;
}

typedef struct trace_pass {
    _Unwind_Trace_Fn fn;
    void *arg;
    int past_own;
} trace_pass;

typedef uintptr_t (*get_ip_fn)(void *);

static _Unwind_Reason_Code trace_skip_own(void *ctx, void *arg)
{
    trace_pass *p = arg;
    if (!p->past_own) {
        uintptr_t ip = ((get_ip_fn)next(&real_get_ip, "_Unwind_GetIP"))(ctx);
        if (own_code((uint64_t)ip))
            return 0; /* _URC_NO_REASON: on to the next frame */
        p->past_own = 1;
    }
    return ((_Unwind_Reason_Code(*)(void *, void *))p->fn)(ctx, p->arg);
}

EXPORT _Unwind_Reason_Code _Unwind_Backtrace(_Unwind_Trace_Fn fn, void *arg)
{
    unwind_restore_thunks();
    if (!exact_calls_out())
        return ((bt_fn)next(&real_ubt, "_Unwind_Backtrace"))(fn, arg);
    trace_pass p = { fn, arg, 0 };
    _Unwind_Reason_Code rc =
        ((bt_fn)next(&real_ubt, "_Unwind_Backtrace"))((_Unwind_Trace_Fn)trace_skip_own, &p);
    rearm_exact();
    return rc;
}

EXPORT int backtrace(void **buffer, int size)
{
    unwind_restore_thunks();
    if (!exact_calls_out())
        return ((backtrace_fn)next(&real_backtrace, "backtrace"))(buffer, size);
    int n = walk_without_own_frames((backtrace_fn)next(&real_backtrace, "backtrace"), buffer, size);
    rearm_exact();
    return n;
}

EXPORT int unw_backtrace(void **buffer, int size)
{
    if (own_walk_state)
        return 0; /* a handler nested in hprof's own walk (own_walk.h) */
    unwind_restore_thunks();
    if (!exact_calls_out())
        return ((backtrace_fn)next(&real_unw_bt, "unw_backtrace"))(buffer, size);
    int n = walk_without_own_frames((backtrace_fn)next(&real_unw_bt, "unw_backtrace"), buffer, size);
    rearm_exact();
    return n;
}

/* The frame that calls this catches an exception: calls below it were
 * left by the exception (closed now), the others go on. */
EXPORT void *__cxa_begin_catch(void *exception)
{
    exact_stack *x = exact_stack_peek();
    if (x && x->top) {
        uint64_t sp = (uint64_t)(uintptr_t)__builtin_dwarf_cfa(); /* the catching frame's sp */
        x->busy = 1;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        exact_stack_unwind_to(x, sp, exact_stamp_now());
        if (x->disarmed)
            exact_stack_rearm(x, sp);
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        x->busy = 0;
    }
    return ((begin_catch_fn)next(&real_begin_catch, "__cxa_begin_catch"))(exception);
}

/* The stack pointer a jmp_buf restores: glibc keeps it mangled with the
 * thread's pointer guard (x86_64: xor with %fs:0x30, rotate left 17). */
static uint64_t jump_target_sp(const struct __jmp_buf_tag *env)
{
    uint64_t v = (uint64_t)env->__jmpbuf[6], guard;
    __asm__("movq %%fs:0x30, %0" : "=r"(guard));
    return ((v >> 17) | (v << 47)) ^ guard;
}

/* Before a longjmp: the calls below its target end now. A target that
 * is no frame above this one on the thread's stack is left alone. */
static void exact_jump(const struct __jmp_buf_tag *env)
{
    /* a jump out of an MPI call (a handler's siglongjmp): the call is no
     * longer under way, a later stop must not book it */
    hprof_thread *t = hprof_self;
    if (t && t->in_flight && (uint64_t)(uintptr_t)t->in_flight < jump_target_sp(env))
        t->in_flight = NULL;
    exact_stack *x = exact_stack_peek();
    if (!x || !x->top || x->busy)
        return;
    uint64_t sp = jump_target_sp(env);
    if (sp <= current_sp() || (x->stack_hi && (sp < x->stack_lo || sp >= x->stack_hi)))
        return;
    x->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    exact_stack_unwind_to(x, sp, exact_stamp_now());
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    x->busy = 0;
}

EXPORT void longjmp(struct __jmp_buf_tag env[1], int val)
{
    exact_jump(env);
    ((jump_fn)next(&real_longjmp, "longjmp"))(env, val);
    abort();
}

EXPORT void _longjmp(struct __jmp_buf_tag env[1], int val)
{
    exact_jump(env);
    ((jump_fn)next(&real__longjmp, "_longjmp"))(env, val);
    abort();
}

EXPORT void siglongjmp(struct __jmp_buf_tag env[1], int val)
{
    exact_jump(env);
    ((jump_fn)next(&real_siglongjmp, "siglongjmp"))(env, val);
    abort();
}

EXPORT void __longjmp_chk(struct __jmp_buf_tag env[1], int val)
{
    exact_jump(env);
    ((jump_fn)next(&real_longjmp_chk, "__longjmp_chk"))(env, val);
    abort();
}

EXPORT int _ULx86_64_init_local(void *cursor, void *context)
{
    if (foreign_init_local() != 0)
        return -1; /* -UNW_EUNSPEC */
    return ((init_local_fn)next(&real_init_local, "_ULx86_64_init_local"))(cursor, context);
}

EXPORT int _ULx86_64_init_local2(void *cursor, void *context, int flag)
{
    if (foreign_init_local() != 0)
        return -1;
    return ((init_local2_fn)next(&real_init_local2, "_ULx86_64_init_local2"))(cursor, context, flag);
}

EXPORT int swapcontext(ucontext_t *oucp, const ucontext_t *ucp)
{
    unwind_restore_thunks();
    return ((swap_fn)next(&real_swap, "swapcontext"))(oucp, ucp);
}

EXPORT int setcontext(const ucontext_t *ucp)
{
    unwind_restore_thunks();
    return ((set_fn)next(&real_set, "setcontext"))(ucp);
}

EXPORT void pthread_exit(void *ret)
{
    unwind_restore_thunks();
    ((exit_fn)next(&real_exit, "pthread_exit"))(ret);
    abort();
}
#endif
