#define _GNU_SOURCE
/*
 * real_dl.c - see real_dl.h.
 */
#include "core/real_dl.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>

int hprof_loader_quiet_signal = SIGPROF;

/* glibc's fork resets the loader's main lock in the child, not the one
 * dl_iterate_phdr takes: a thread that held it at the fork (hprof's
 * learner in libunwind, or one of the program's) holds it for good there. */
static int forked_child;

static void note_forked_child(void)
{
    forked_child = 1;
}

int hprof_loader_iterate(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data)
{
    static int atfork_set;
    if (!__atomic_exchange_n(&atfork_set, 1, __ATOMIC_ACQ_REL))
        pthread_atfork(NULL, NULL, note_forked_child);
    if (forked_child)
        return -1;
    sigset_t quiet, before;
    sigemptyset(&quiet);
    sigaddset(&quiet, __atomic_load_n(&hprof_loader_quiet_signal, __ATOMIC_ACQUIRE));
    int held = pthread_sigmask(SIG_BLOCK, &quiet, &before) == 0;
    int rc = dl_iterate_phdr(cb, data);
    if (held)
        pthread_sigmask(SIG_SETMASK, &before, NULL);
    return rc;
}

static hprof_dlsym_fn loader_dlsym;

hprof_dlsym_fn hprof_loader_dlsym(void)
{
    hprof_dlsym_fn p = __atomic_load_n(&loader_dlsym, __ATOMIC_ACQUIRE);
    if (!p) {
        p = (hprof_dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
        if (!p)
            p = (hprof_dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
        __atomic_store_n(&loader_dlsym, p, __ATOMIC_RELEASE);
    }
    return p;
}

/* glibc takes RTLD_NEXT's object from its caller's return address: here,
 * or hprof's code that called this where the call is a tail call; hprof's
 * object either way. */
void *hprof_dlsym(void *handle, const char *name)
{
    hprof_dlsym_fn real = hprof_loader_dlsym();
    return real ? real(handle, name) : NULL;
}
