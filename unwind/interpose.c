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
 *
 * Signal masks: libunwind (built with its default, block-signals) sets a
 * full signal mask around dl_iterate_phdr and its internal locks, and it
 * must: a handler that siglongjmps out of a walk holding libunwind's lock
 * leaves it held, and the next walk waits forever (seen: 1 run in 8 of
 * tests/mpi/reliability_sigalrm.sh when those masks were made no-ops). In
 * hprof's own walks on the main thread that mask would hand a
 * process-directed signal (SIGALRM, SIGCHLD, ...) to another thread, an MPI
 * library's helper; so the walk says so (hprof_main_in_own_walk) and the
 * signal router (lib/runtime/signal_route.c) queues such a signal back to the main
 * thread, where it is handled once the walk is over. A handler on the same
 * thread that would enter libunwind during hprof's walk is refused too:
 * libunwind entered by anything else during that walk gets an error
 * (unw_init_local*) or no frames (unw_backtrace).
 */
#if defined(__x86_64__)
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "interpose.h"
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
typedef int (*init_local2_fn)(void *, void *, int);

static void *real_raise, *real_resume, *real_rethrow, *real_forced, *real_ubt, *real_backtrace, *real_swap,
    *real_set, *real_exit, *real_unw_bt, *real_init_local, *real_init_local2;

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
    real_init_local2 = dlsym(RTLD_NEXT, "_ULx86_64_init_local2");
}

/* hprof's own libunwind walk on this thread: OWN_ENTERING until libunwind
 * has made its cursor (unw_backtrace calls unw_init_local through the
 * PLT), then OWN_INSIDE. */
enum { OWN_NONE, OWN_ENTERING, OWN_INSIDE };
static __thread int in_own_walk __attribute__((tls_model("initial-exec")));

/* Set while the main thread runs hprof's own walk (read by other threads). */
static int main_in_own_walk;

static int on_main_thread(void)
{
    return syscall(SYS_gettid) == getpid();
}

void hprof_own_walk_begin(int entering)
{
    in_own_walk = entering ? OWN_ENTERING : OWN_INSIDE;
    if (on_main_thread())
        __atomic_store_n(&main_in_own_walk, 1, __ATOMIC_RELEASE);
}

void hprof_own_walk_end(void)
{
    in_own_walk = OWN_NONE;
    if (__atomic_load_n(&main_in_own_walk, __ATOMIC_RELAXED) && on_main_thread())
        __atomic_store_n(&main_in_own_walk, 0, __ATOMIC_RELEASE);
}

int hprof_main_in_own_walk(void)
{
    return __atomic_load_n(&main_in_own_walk, __ATOMIC_ACQUIRE);
}

/* A cursor made by anyone but hprof's own walk: the thunks go first; and
 * while hprof's walk runs on this thread (a handler nested in it) libunwind
 * is not entered again (see the top). */
static int foreign_init_local(void)
{
    if (in_own_walk == OWN_ENTERING) {
        in_own_walk = OWN_INSIDE;
        return 0;
    }
    if (in_own_walk == OWN_INSIDE)
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
    if (in_own_walk)
        return 0; /* a handler nested in hprof's own walk (see the top) */
    unwind_restore_thunks();
    return ((backtrace_fn)next(&real_unw_bt, "unw_backtrace"))(buffer, size);
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

/* hprof's own fallback walks: libunwind's, not the wrapper above (which
 * would drop the thunk stack); the caller has put the originals back. */
int hprof_real_unw_backtrace(void **buffer, int size)
{
    hprof_own_walk_begin(1);
    int n = ((backtrace_fn)next(&real_unw_bt, "unw_backtrace"))(buffer, size);
    hprof_own_walk_end();
    return n;
}
#endif
