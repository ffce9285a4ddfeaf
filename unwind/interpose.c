#define _GNU_SOURCE
#undef _FORTIFY_SOURCE /* longjmp is defined here under its own name */
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
 * Exactly measured calls (exact_stack.h) go the same way, and come back:
 * walks that return (backtrace(), unw_backtrace, _Unwind_Backtrace) put
 * the exit thunk back in the slots still live after them; an exception's
 * catch (__cxa_begin_catch) closes, at the catch, the calls the exception
 * left and puts the exit thunk back in the others; longjmp and its kin
 * close the calls below the frame they jump to, at the jump (the target's
 * stack pointer, read from the jmp_buf as glibc mangles it; where it does
 * not look like a frame of this thread's stack, the calls are found gone
 * later, by their slots).
 *
 * dlsym: see hprof_dlsym_watch (interpose.h).
 *
 * Signal masks: libunwind (built with its default, block-signals) sets a
 * full signal mask around dl_iterate_phdr and its internal locks, and it
 * must: a handler that siglongjmps out of a walk holding libunwind's lock
 * leaves it held, and the next walk waits forever (seen: 1 run in 8 of
 * tests/mpi/reliability_sigalrm.sh when those masks were made no-ops). In
 * hprof's own walks on the main thread that mask would hand a
 * process-directed signal (SIGALRM, SIGCHLD, ...) to another thread, an MPI
 * library's helper; so the walk says so (hprof_main_in_own_walk) and the
 * signal router (lib/signal_route.c) queues such a signal back to the main
 * thread, where it is handled once the walk is over. A handler on the same
 * thread that would enter libunwind during hprof's walk is refused too:
 * libunwind entered by anything else during that walk gets an error
 * (unw_init_local*) or no frames (unw_backtrace).
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
#include "unwind/exact_stack.h"
#include "unwind/interpose.h"
#include "unwind/modules.h"
#include "core/own_code.h"
#include "unwind/thunk_stack.h"
#include "unwind/unwind.h"

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
typedef void *(*begin_catch_fn)(void *);
typedef void (*jump_fn)(struct __jmp_buf_tag *, int);

static void *real_raise, *real_resume, *real_rethrow, *real_forced, *real_ubt, *real_backtrace, *real_swap,
    *real_set, *real_exit, *real_unw_bt, *real_init_local, *real_init_local2, *real_begin_catch, *real_longjmp,
    *real__longjmp, *real_siglongjmp, *real_longjmp_chk, *real_get_ip;

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
    real_begin_catch = dlsym(RTLD_NEXT, "__cxa_begin_catch");
    real_get_ip = dlsym(RTLD_NEXT, "_Unwind_GetIP");
    real_longjmp = dlsym(RTLD_NEXT, "longjmp");
    real__longjmp = dlsym(RTLD_NEXT, "_longjmp");
    real_siglongjmp = dlsym(RTLD_NEXT, "siglongjmp");
    real_longjmp_chk = dlsym(RTLD_NEXT, "__longjmp_chk");
}

/* After a walk that returns: the exit thunks back where their calls are
 * still under way (exact_stack.h). */
static void rearm_exact(void)
{
    exact_stack *x = exact_stack_peek();
    if (x && x->disarmed)
        exact_stack_rearm(x, current_sp());
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
    return ((_Unwind_Reason_Code (*)(void *, void *))p->fn)(ctx, p->arg);
}

EXPORT _Unwind_Reason_Code _Unwind_Backtrace(_Unwind_Trace_Fn fn, void *arg)
{
    unwind_restore_thunks();
    if (!exact_calls_out())
        return ((bt_fn)next(&real_ubt, "_Unwind_Backtrace"))(fn, arg);
    trace_pass p = { fn, arg, 0 };
    _Unwind_Reason_Code rc = ((bt_fn)next(&real_ubt, "_Unwind_Backtrace"))((_Unwind_Trace_Fn)trace_skip_own, &p);
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
    if (in_own_walk)
        return 0; /* a handler nested in hprof's own walk (see the top) */
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
        exact_stack_unwind_to(x, sp, hprof_now_ns());
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
    exact_stack *x = exact_stack_peek();
    if (!x || !x->top || x->busy)
        return;
    uint64_t sp = jump_target_sp(env);
    if (sp <= current_sp() || (x->stack_hi && (sp < x->stack_lo || sp >= x->stack_hi)))
        return;
    x->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    exact_stack_unwind_to(x, sp, hprof_now_ns());
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

/* hprof's own fallback walks: libunwind's, not the wrapper above (which
 * would drop the thunk stack); the caller has put the originals back. */
int hprof_real_unw_backtrace(void **buffer, int size)
{
    hprof_own_walk_begin(1);
    int n = ((backtrace_fn)next(&real_unw_bt, "unw_backtrace"))(buffer, size);
    hprof_own_walk_end();
    return n;
}

/* ---- dlsym ---------------------------------------------------------------- */

/* The real dlsym (libc since glibc 2.34, libdl before), and the switch;
 * read by the stub. */
static void *real_dlsym __attribute__((used));
static int watch_dlsym __attribute__((used));

void hprof_dlsym_watch(int on)
{
    __atomic_store_n(&watch_dlsym, on, __ATOMIC_RELEASE);
}

/* The stub's call, with its arguments saved: the real dlsym found, and
 * the record of loaded code refreshed where asked. */
static void __attribute__((used)) dlsym_prepare(void *handle)
{
    if (!__atomic_load_n(&real_dlsym, __ATOMIC_ACQUIRE)) {
        void *p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
        if (!p)
            p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
        __atomic_store_n(&real_dlsym, p, __ATOMIC_RELEASE);
    }
    static __thread int looking; /* the hooks may call dlsym themselves */
    if (handle == RTLD_NEXT || looking || !__atomic_load_n(&watch_dlsym, __ATOMIC_ACQUIRE))
        return;
    looking = 1;
    modules_refresh();
    looking = 0;
}

/* Jumps to the real dlsym with the caller's return address in place; a
 * call of dlsym_prepare first when it is not known yet, or when the
 * record of loaded code is watched. */
__asm__(".text\n"
        ".p2align 4\n"
        ".globl dlsym\n"
        ".type dlsym, @function\n"
        "dlsym:\n"
        "  movq real_dlsym(%rip), %r11\n"
        "  testq %r11, %r11\n"
        "  jz 1f\n"
        "  cmpl $0, watch_dlsym(%rip)\n"
        "  jne 1f\n"
        "  jmp *%r11\n"
        "1:\n"
        "  pushq %rdi\n"
        "  pushq %rsi\n"
        "  subq $8, %rsp\n" /* 16-byte aligned at the call */
        "  call dlsym_prepare\n"
        "  addq $8, %rsp\n"
        "  popq %rsi\n"
        "  popq %rdi\n"
        "  movq real_dlsym(%rip), %r11\n"
        "  testq %r11, %r11\n"
        "  jz 2f\n"
        "  jmp *%r11\n"
        "2:\n"
        "  xorl %eax, %eax\n" /* no dlsym below: cannot happen with glibc */
        "  ret\n"
        ".size dlsym, . - dlsym\n");
#endif
