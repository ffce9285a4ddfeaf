#define _GNU_SOURCE
/*
 * exact_tick.c - see exact_tick.h.
 */
#include "lib/exact/exact_tick.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>

static uint64_t (*tick_fn)(void);
static uint64_t period;
static int stopping;

static void *ticker(void *unused)
{
    (void)unused;
    uint64_t next = period;
    for (;;) {
        struct timespec ts = { (time_t)(next / 1000000000u), (long)(next % 1000000000u) };
        while (nanosleep(&ts, &ts) != 0)
            ; /* EINTR: the rest of the wait */
        if (__atomic_load_n(&stopping, __ATOMIC_ACQUIRE))
            return NULL;
        next = tick_fn();
        if (next == 0)
            next = period;
    }
}

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

int exact_tick_start(uint64_t (*tick)(void), uint64_t period_ns)
{
    create_fn create = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
    if (!create || tick_fn)
        return -1;
    tick_fn = tick;
    period = period_ns;
    sigset_t all;
    sigfillset(&all);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t id;
    int rc = pthread_attr_setsigmask_np(&attr, &all) == 0 && create(&id, &attr, ticker, NULL) == 0 ? 0 : -1;
    pthread_attr_destroy(&attr);
    return rc;
}

void exact_tick_stop(void)
{
    __atomic_store_n(&stopping, 1, __ATOMIC_RELEASE);
}
