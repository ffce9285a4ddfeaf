#define _GNU_SOURCE
/*
 * own_walk.c - see own_walk.h.
 */
#if defined(__x86_64__)
#include "unwind/own_walk.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/loader_lock.h"
#include "core/real_dl.h"

typedef int (*backtrace_fn)(void **, int);
typedef int (*init_local2_fn)(void *, void *, int);

static void *real_unw_bt, *real_init_local2;

__thread int own_walk_state __attribute__((tls_model("initial-exec"))); /* as own_walk.h declares it */

/* Set while the main thread runs hprof's own walk (read by other threads). */
static int main_in_own_walk;

static void *next(void **cache, const char *name)
{
    void *p = __atomic_load_n(cache, __ATOMIC_RELAXED);
    if (!p) {
        p = hprof_dlsym(RTLD_NEXT, name);
        if (!p)
            abort(); /* hprof is linked with libunwind */
        __atomic_store_n(cache, p, __ATOMIC_RELAXED);
    }
    return p;
}

void own_walk_resolve(void)
{
    static int done;
    if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
        return;
    __atomic_store_n(&real_unw_bt, hprof_dlsym(RTLD_NEXT, "unw_backtrace"), __ATOMIC_RELAXED);
    __atomic_store_n(&real_init_local2, hprof_dlsym(RTLD_NEXT, "_ULx86_64_init_local2"), __ATOMIC_RELAXED);
    hprof_loader_lock_find(); /* which signal handlers read before libunwind */
}

static int on_main_thread(void)
{
    return syscall(SYS_gettid) == getpid();
}

void hprof_own_walk_begin(int entering)
{
    own_walk_state = entering ? OWN_ENTERING : OWN_INSIDE;
    if (on_main_thread())
        __atomic_store_n(&main_in_own_walk, 1, __ATOMIC_RELEASE);
}

void hprof_own_walk_end(void)
{
    own_walk_state = OWN_NONE;
    if (__atomic_load_n(&main_in_own_walk, __ATOMIC_RELAXED) && on_main_thread())
        __atomic_store_n(&main_in_own_walk, 0, __ATOMIC_RELEASE);
}

int hprof_main_in_own_walk(void)
{
    return __atomic_load_n(&main_in_own_walk, __ATOMIC_ACQUIRE);
}

int hprof_real_unw_backtrace(void **buffer, int size)
{
    hprof_own_walk_begin(1);
    int n = ((backtrace_fn)next(&real_unw_bt, "unw_backtrace"))(buffer, size);
    hprof_own_walk_end();
    return n;
}

int hprof_real_unw_init_local2(void *cursor, void *context, int flag)
{
    return ((init_local2_fn)next(&real_init_local2, "_ULx86_64_init_local2"))(cursor, context, flag);
}
#endif
