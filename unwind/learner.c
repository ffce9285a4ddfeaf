#define _GNU_SOURCE
/*
 * learner.c - the queue of keys that signal handlers could not find a
 * recipe for, and the thread that learns them. See learner.h.
 *
 * The queue is a small open-addressed set of keys: a handler claims the
 * key's slot with a compare-and-swap from 0 and posts the semaphore
 * (sem_post is async-signal-safe); a drainer takes each slot with an
 * exchange, so every queued key is learned once, by whoever drains first.
 */
#if defined(__x86_64__)
#include "unwind/learner.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>

#include "core/real_dl.h"
#include "unwind/prelearn.h"
#include "unwind/recipe.h"

#define QUEUE_SLOTS 256

static uint64_t queue[QUEUE_SLOTS];
static sem_t wakeup;
static int running;     /* the thread is live in this process */
static uint64_t queued; /* keys queued since the last drain began: MPI calls test it */

void learner_request(uint64_t key)
{
    uint64_t *slot = &queue[recipe_hash(key) % QUEUE_SLOTS];
    uint64_t empty = 0;
    if (!__atomic_compare_exchange_n(slot, &empty, key, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        return;
    __atomic_fetch_add(&queued, 1, __ATOMIC_RELEASE);
    if (__atomic_load_n(&running, __ATOMIC_ACQUIRE))
        sem_post(&wakeup);
}

void learner_drain(int may_wait)
{
    /* A key whose slot a drain already passed raises queued after it was
     * reset: the next drain takes it. */
    if (!__atomic_load_n(&queued, __ATOMIC_ACQUIRE) || !__atomic_exchange_n(&queued, 0, __ATOMIC_ACQ_REL))
        return;
    for (int i = 0; i < QUEUE_SLOTS; i++) {
        if (!__atomic_load_n(&queue[i], __ATOMIC_RELAXED))
            continue;
        uint64_t key = __atomic_exchange_n(&queue[i], 0, __ATOMIC_ACQUIRE);
        if (key && !recipe_learn(key, may_wait) && !may_wait)
            return; /* the learner holds the lock: it takes the rest */
    }
}

static void *learner_main(void *unused)
{
    (void)unused;
    /* It only runs on a core nothing else wants: on a machine full of
     * ranks it must not take time from them (their MPI calls learn then). */
    struct sched_param idle = { 0 };
    pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
    learner_drain(1); /* what samples queued before it ran comes first */
    prelearn p;
    if (prelearn_begin(&p)) {
        while (prelearn_next(&p))
            learner_drain(1); /* what samples missed meanwhile comes first */
        prelearn_end(&p);
    }
    for (;;) {
        while (sem_wait(&wakeup) != 0)
            ; /* EINTR */
        learner_drain(1);
    }
    return NULL;
}

/* A child of fork has no learner: its MPI calls drain the queue. */
static void learner_after_fork_child(void)
{
    running = 0;
}

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

void learner_start(void)
{
    static int started;
    if (__atomic_exchange_n(&started, 1, __ATOMIC_ACQ_REL))
        return;
    /* libc's pthread_create: this thread is hprof's, not the program's,
     * and is neither measured nor sampled */
    create_fn create = (create_fn)hprof_dlsym(RTLD_NEXT, "pthread_create");
    if (!create || sem_init(&wakeup, 0, 0) != 0)
        return;
    pthread_atfork(NULL, NULL, learner_after_fork_child);
    /* It starts with a full signal mask, so the program's signals never
     * run on it: a thread that blocks everything is never chosen for a
     * process-directed signal, as if it did not exist. The mask is given
     * in the attributes, not by masking the calling thread around the
     * create: that would hand a process-directed signal arriving then to
     * another thread. Without the attribute, no learner (MPI calls learn). */
    sigset_t all;
    sigfillset(&all);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t id;
    if (pthread_attr_setsigmask_np(&attr, &all) == 0 && create(&id, &attr, learner_main, NULL) == 0) {
        __atomic_store_n(&running, 1, __ATOMIC_RELEASE);
        sem_post(&wakeup); /* keys queued before it ran */
    }
    pthread_attr_destroy(&attr);
}
#endif
