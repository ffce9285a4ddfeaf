/*
 * thread.h - per-thread measurement state.
 *
 * Each thread that makes a measured MPI call gets a hprof_thread, created on
 * its first call and kept on a lock-free list so finalize can find every
 * thread's tree, also of threads that have ended. The current thread's state
 * is reached through an initial-exec TLS pointer, which is safe to read from a
 * signal handler.
 */
#ifndef HPROF_THREAD_H
#define HPROF_THREAD_H

#include <stddef.h>
#include <stdint.h>

#include "cct.h"
#include "papi_events.h"
#include "sampler.h"

typedef struct hprof_thread {
    cct tree;
    int index;              /* location index within the process, 0 = first */
    int depth;              /* MPI wrappers currently active on this thread */
    void *scratch;          /* see hprof_thread_scratch() */
    size_t scratch_size;
    struct hprof_sampling sampling;
    hprof_papi_thread papi; /* HPROF_METRICS event set and readings */
    uint64_t start_routine; /* the routine the thread was created to run; 0: unknown */
    struct hprof_thread *next;
} hprof_thread;

extern __thread hprof_thread *hprof_self __attribute__((tls_model("initial-exec")));

/* The calling thread's state, created if needed (not from a signal handler).
 * NULL if it could not be created. */
hprof_thread *hprof_thread_get(void);

/* Same, and when it had no state yet and the measurement runs, its
 * sampling starts now (threads that first show up in an MPI call). */
hprof_thread *hprof_thread_enter(void);

/* Closes a thread's sampling window at now_ns (on the sampling clock). Its
 * last interval goes to its last sampled call path, or, without one, to the
 * routine it was started with. */
void hprof_thread_close(hprof_thread *t, uint64_t now_ns);

/* All threads ever registered, newest first. */
hprof_thread *hprof_thread_list(void);
int hprof_thread_count(void);

#endif
