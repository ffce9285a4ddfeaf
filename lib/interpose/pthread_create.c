/*
 * pthread_create.c - the program's pthread_create (also OpenMP's, which
 * calls it): while the measurement runs, the new thread is measured from
 * its start (lib/threads/thread_start.h); outside it (the launcher, before
 * MPI_Init) the call is passed straight through.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>

#include "core/real_dl.h"
#include "lib/active.h"
#include "lib/threads/thread_start.h"

__attribute__((visibility("default"))) int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                                                          void *(*routine)(void *), void *arg)
{
    static thread_create_fn real_create;
    if (!real_create)
        real_create = (thread_create_fn)hprof_dlsym(RTLD_NEXT, "pthread_create");
    if (!real_create)
        return EAGAIN; /* no pthread_create to call: cannot happen with glibc */
    if (!hprof_active)
        return real_create(thread, attr, routine, arg);
    return thread_start_create(real_create, thread, attr, routine, arg);
}
