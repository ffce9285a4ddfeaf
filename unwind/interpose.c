#define _GNU_SOURCE
/*
 * interpose.c - everything that walks or leaves the stack behind hprof's
 * back gets the original return addresses back first (the thunk stack,
 * unwind_x86_64.c): the C++ unwinder (_Unwind_RaiseException, _Resume,
 * _Resume_or_Rethrow, _ForcedUnwind, _Backtrace), glibc's backtrace() (it
 * reaches libgcc through its own dlopen, not through these symbols),
 * libunwind called by the program (unw_backtrace, unw_init_local),
 * pthread_exit, and stack switches (swapcontext, setcontext). longjmp needs
 * nothing: a later walk finds the frames it left and ignores the stale
 * entries.
 */
#if defined(__x86_64__)
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <ucontext.h>

#include "unwind.h"

/* libgcc's <unwind.h> is shadowed by ours (-Iunwind): its few types here */
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

static void *real_raise, *real_resume, *real_rethrow, *real_forced, *real_ubt, *real_backtrace, *real_swap,
    *real_set, *real_exit, *real_unw_bt, *real_init_local;

static void *next(void **cache, const char *name)
{
    void *p = __atomic_load_n(cache, __ATOMIC_RELAXED);
    if (!p) {
        p = dlsym(RTLD_NEXT, name);
        if (!p)
            abort(); /* the program called it, so it exists further down */
        __atomic_store_n(cache, p, __ATOMIC_RELAXED);
    }
    return p;
}

/* Resolved when the measurement starts on a thread (unwind_thread_init),
 * so that calls from signal handlers (backtrace() in a crash handler, our
 * own fallback) need no dlsym; before that, on first use. No constructor:
 * a process that never calls MPI_Init runs untouched. */
void hprof_interpose_resolve(void)
{
    static int done;
    if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
        return;
    real_raise = dlsym(RTLD_NEXT, "_Unwind_RaiseException");
    real_resume = dlsym(RTLD_NEXT, "_Unwind_Resume");
    real_rethrow = dlsym(RTLD_NEXT, "_Unwind_Resume_or_Rethrow");
    real_forced = dlsym(RTLD_NEXT, "_Unwind_ForcedUnwind");
    real_ubt = dlsym(RTLD_NEXT, "_Unwind_Backtrace");
    real_backtrace = dlsym(RTLD_NEXT, "backtrace");
    real_swap = dlsym(RTLD_NEXT, "swapcontext");
    real_set = dlsym(RTLD_NEXT, "setcontext");
    real_exit = dlsym(RTLD_NEXT, "pthread_exit");
    real_unw_bt = dlsym(RTLD_NEXT, "unw_backtrace");
    real_init_local = dlsym(RTLD_NEXT, "_ULx86_64_init_local");
}

/* set while hprof itself runs libunwind, which calls unw_init_local */
static __thread int in_own_walk __attribute__((tls_model("initial-exec")));

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

EXPORT _Unwind_Reason_Code _Unwind_Backtrace(_Unwind_Trace_Fn fn, void *arg)
{
    unwind_restore_thunks();
    return ((bt_fn)next(&real_ubt, "_Unwind_Backtrace"))(fn, arg);
}

EXPORT int backtrace(void **buffer, int size)
{
    unwind_restore_thunks();
    return ((backtrace_fn)next(&real_backtrace, "backtrace"))(buffer, size);
}

EXPORT int unw_backtrace(void **buffer, int size)
{
    unwind_restore_thunks();
    return ((backtrace_fn)next(&real_unw_bt, "unw_backtrace"))(buffer, size);
}

EXPORT int _ULx86_64_init_local(void *cursor, void *context)
{
    if (!in_own_walk)
        unwind_restore_thunks();
    return ((init_local_fn)next(&real_init_local, "_ULx86_64_init_local"))(cursor, context);
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

/* hprof's own fallback walks: libunwind's, not the wrapper above (which
 * would drop the thunk stack); the caller has put the originals back. */
int hprof_real_unw_backtrace(void **buffer, int size)
{
    in_own_walk = 1;
    int n = ((backtrace_fn)next(&real_unw_bt, "unw_backtrace"))(buffer, size);
    in_own_walk = 0;
    return n;
}
#endif
