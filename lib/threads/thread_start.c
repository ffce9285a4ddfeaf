/*
 * thread_start.c - see thread_start.h. Threads are measured from their
 * start: pthread_create (also OpenMP's, which calls it) is interposed
 * (lib/interpose/pthread_create.c) so that a thread created
 * while the measurement runs gets its state and its sampling timer before it
 * runs a line of the program, and closes its sampling window when it ends
 * (returning, pthread_exit or cancellation), keeping its data for finalize.
 * Outside the measurement (the launcher, before MPI_Init) pthread_create is
 * passed straight through.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/cct.h"
#include "core/clock.h"
#include "lib/polls/poll_run.h"
#include "lib/active.h"
#include "lib/sampling/sampler.h"
#include "lib/threads/thread.h"
#include "lib/threads/thread_start.h"

typedef struct start_args {
    void *(*routine)(void *);
    void *arg;
} start_args;

static void thread_end(void *arg)
{
    hprof_thread *t = arg;
    if (!t)
        return;
    t->depth++; /* keep our own handler out while the window closes */
    poll_run_close(t, hprof_now_ns());
    sampler_thread_close(t, window_clock_ns());
    t->depth--;
    hprof_thread_end(t); /* its data stays, its memory goes (t may be reused at once) */
}

static void *hprof_thread_start(void *p)
{
    start_args a = *(start_args *)p;
    free(p);
    hprof_thread *t = hprof_active ? hprof_thread_get() : NULL;
    if (t) {
        t->start_routine = (uint64_t)(uintptr_t)a.routine;
        sampler_thread_start(t, hprof_now_ns());
    }
    void *ret;
    pthread_cleanup_push(thread_end, t);
    ret = a.routine(a.arg);
    pthread_cleanup_pop(1);
    return ret;
}

int thread_start_create(thread_create_fn real, pthread_t *thread, const pthread_attr_t *attr,
                        void *(*routine)(void *), void *arg)
{
    start_args *a = malloc(sizeof *a);
    if (!a)
        return real(thread, attr, routine, arg);
    a->routine = routine;
    a->arg = arg;
    int rc = real(thread, attr, hprof_thread_start, a);
    if (rc != 0)
        free(a);
    return rc;
}
