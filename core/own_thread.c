#define _GNU_SOURCE
/*
 * own_thread.c - hprof's own threads (see own_thread.h).
 */
#include "core/own_thread.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>

#include "core/real_dl.h"

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

/* The mask is given in the attributes, not by masking the calling thread
 * around the create: that would hand a process-directed signal arriving
 * then to another thread. */
int hprof_own_thread_start(void *(*fn)(void *), void *arg)
{
    create_fn create = (create_fn)hprof_dlsym(RTLD_NEXT, "pthread_create");
    if (!create)
        return -1;
    sigset_t all;
    sigfillset(&all);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t id;
    int rc = pthread_attr_setsigmask_np(&attr, &all) == 0 && create(&id, &attr, fn, arg) == 0 ? 0 : -1;
    pthread_attr_destroy(&attr);
    return rc;
}
