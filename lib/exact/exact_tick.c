#define _GNU_SOURCE
/*
 * exact_tick.c - see exact_tick.h.
 */
#include "lib/exact/exact_tick.h"

#include <time.h>

#include "core/own_thread.h"

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

int exact_tick_start(uint64_t (*tick)(void), uint64_t period_ns)
{
    if (tick_fn)
        return -1;
    tick_fn = tick;
    period = period_ns;
    if (hprof_own_thread_start(ticker, NULL) != 0) {
        tick_fn = NULL;
        return -1;
    }
    return 0;
}

void exact_tick_stop(void)
{
    __atomic_store_n(&stopping, 1, __ATOMIC_RELEASE);
}
