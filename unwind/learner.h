/*
 * learner.h - recipes for addresses that signal handlers missed, learned
 * off the handler: a handler cannot learn (libdw allocates and locks), so it
 * queues the key and falls back to libunwind for that one sample. A
 * background thread (started with sampling) learns queued keys at once,
 * so that a compute-only phase, with no MPI call to learn at, is walked
 * with recipes from its second sample on. It runs at the program's
 * priority: the learning lock it holds is one the program's MPI calls wait
 * for, and its work is what their walks would learn otherwise, once a
 * key. A second thread, at idle priority, reads the program's own recipes
 * ahead of its samples (prelearn.h) and hands them to the learner to
 * publish. Without the learner (it could not be created, or after fork)
 * the thread's next MPI call learns them.
 */
#ifndef HPROF_LEARNER_H
#define HPROF_LEARNER_H

#include <stdint.h>

/* Queues key for learning. Async-signal-safe, lock-free; drops the key when
 * its queue slot is taken (a later sample queues it again). */
void learner_request(uint64_t key);

/* Learns every queued key now (not from a signal handler). may_wait 0
 * (MPI calls): stop, never wait, when the learner thread is learning. */
void learner_drain(int may_wait);

/* Starts the background thread (once per process; idempotent). */
void learner_start(void);

#endif
