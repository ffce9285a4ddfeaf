#define _GNU_SOURCE
/*
 * learner.c - the queue of keys that signal handlers could not find a
 * recipe for, the thread that learns them, and the one that reads the
 * program's recipes ahead. See learner.h.
 *
 * The queue is a small open-addressed set of keys: a handler claims the
 * key's slot with a compare-and-swap from 0 and posts the semaphore
 * (sem_post is async-signal-safe); a drainer takes each slot with an
 * exchange, so every queued key is learned once, by whoever drains first.
 */
#if defined(__x86_64__)
#include "unwind/learner.h"

#include <pthread.h>
#include <sched.h>
#include <semaphore.h>

#include "core/own_thread.h"
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

/* ---- the prelearner: the program's recipes read ahead, at idle priority -- */

static prelearn ahead;
static int ahead_ready; /* a batch read, for the learner to publish */
static sem_t ahead_published;

/* The learner publishes what the prelearner read: the learning lock is
 * never held at idle priority, where a descheduled holder would keep the
 * program's MPI calls waiting for it. */
static void publish_ahead(void)
{
    if (!__atomic_exchange_n(&ahead_ready, 0, __ATOMIC_ACQ_REL))
        return;
    prelearn_publish(&ahead);
    sem_post(&ahead_published);
}

static void *prelearner_main(void *unused)
{
    (void)unused;
    /* It only runs on a core nothing else wants: on a machine full of
     * ranks it must not take time from them. */
    struct sched_param idle = { 0 };
    pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
    pthread_setname_np(pthread_self(), "hprof-prelearn"); /* once idle: what the name shows is so */
    if (!prelearn_begin(&ahead))
        return NULL;
    while (prelearn_next(&ahead)) {
        __atomic_store_n(&ahead_ready, 1, __ATOMIC_RELEASE);
        sem_post(&wakeup);
        while (sem_wait(&ahead_published) != 0)
            ; /* EINTR */
    }
    prelearn_end(&ahead);
    return NULL;
}

/* ---- the learner: what samples missed, at the program's priority -------- */

/* Not at idle priority: an MPI call that needs a recipe while the learner
 * learns waits for it (frame_walk.c), and a sample that missed one wants
 * it by the next sample. Its work is what the thread's MPI calls would
 * learn otherwise, once a key. */
static void *learner_main(void *unused)
{
    (void)unused;
    pthread_setname_np(pthread_self(), "hprof-learner");
    if (sem_init(&ahead_published, 0, 0) == 0)
        hprof_own_thread_start(prelearner_main, NULL);
    for (;;) {
        learner_drain(1); /* what samples missed comes first */
        publish_ahead();
        while (sem_wait(&wakeup) != 0)
            ; /* EINTR */
    }
    return NULL;
}

/* A child of fork has no learner: its MPI calls drain the queue. */
static void learner_after_fork_child(void)
{
    running = 0;
}

void learner_start(void)
{
    static int started;
    if (__atomic_exchange_n(&started, 1, __ATOMIC_ACQ_REL))
        return;
    if (sem_init(&wakeup, 0, 0) != 0)
        return;
    pthread_atfork(NULL, NULL, learner_after_fork_child);
    /* Without it, no learner: MPI calls learn. It names itself, as top
     * -H shows it (the prelearner too: it may have ended by the time its
     * create returns). */
    if (hprof_own_thread_start(learner_main, NULL) == 0) {
        __atomic_store_n(&running, 1, __ATOMIC_RELEASE);
        sem_post(&wakeup); /* keys queued before it ran */
    }
}
#endif
