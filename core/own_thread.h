/*
 * own_thread.h - hprof's own threads (the learner and the prelearner, the
 * exact functions' tick, the snapshot listener), made alike: by libc's
 * pthread_create, past hprof's interposer, so neither measured nor
 * sampled; detached; and started with every signal blocked, so that the
 * program's signals never run on them: a thread that blocks everything is
 * never chosen for a process-directed signal, as if it did not exist.
 */
#ifndef HPROF_OWN_THREAD_H
#define HPROF_OWN_THREAD_H

/* Starts fn(arg) on a thread of hprof's own: 0, or -1 when it could not
 * (no pthread_create found, no attribute for the mask, or no thread). */
int hprof_own_thread_start(void *(*fn)(void *), void *arg);

#endif
