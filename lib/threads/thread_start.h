/*
 * thread_start.h - a thread the program creates while the measurement runs
 * gets its state and its sampling timer before it runs a line of the
 * program, and closes its sampling window when it ends (returning,
 * pthread_exit or cancellation), keeping its data for finalize.
 */
#ifndef HPROF_THREAD_START_H
#define HPROF_THREAD_START_H

#include <pthread.h>

typedef int (*thread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

/* pthread_create(thread, attr, routine, arg) through real (libc's), the
 * new thread measured from its start (hprof_thread_start runs routine);
 * without memory for that, plainly. */
int thread_start_create(thread_create_fn real, pthread_t *thread, const pthread_attr_t *attr,
                        void *(*routine)(void *), void *arg);

#endif
