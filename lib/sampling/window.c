/*
 * window.c - a thread's sampling window (window.h): the sampling clock
 * and the cost of reading it.
 */
#include "lib/sampling/window.h"

#include <pthread.h>
#include <time.h>

#include "core/clock.h"
#include "core/config.h"

static uint64_t clock_read_cost_ns; /* window_clock_read_cost_ns */

uint64_t window_clock_ns(void)
{
    if (hprof_config.sampling_clock == HPROF_CLOCK_WALL)
        return hprof_now_ns();
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t window_clock_of(const hprof_window *w)
{
    if (hprof_config.sampling_clock == HPROF_CLOCK_WALL)
        return hprof_now_ns();
    struct timespec ts;
    if (!w->has_cpu_clock || clock_gettime(w->cpu_clock, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One read's cost on the thread's CPU clock: the median of batches of
 * back-to-back reads (from one reading to the next is one whole read). */
void window_calibrate_read_cost(void)
{
    enum {
        BATCHES = 7,
        READS = 8
    };
    uint64_t per[BATCHES];
    if (clock_read_cost_ns)
        return;
    for (int b = 0; b < BATCHES; b++) {
        uint64_t first = window_clock_ns(), last = first;
        for (int i = 0; i < READS; i++)
            last = window_clock_ns();
        per[b] = (last - first) / READS;
    }
    for (int i = 1; i < BATCHES; i++) /* insertion sort: seven values */
        for (int j = i; j > 0 && per[j] < per[j - 1]; j--) {
            uint64_t x = per[j];
            per[j] = per[j - 1];
            per[j - 1] = x;
        }
    clock_read_cost_ns = per[BATCHES / 2];
}

uint64_t window_clock_read_cost_ns(void)
{
    return clock_read_cost_ns;
}

uint64_t window_cpu_read(uint64_t *cost)
{
    uint64_t before = hprof_now_ns();
    uint64_t cpu = window_clock_ns();
    uint64_t took = hprof_now_ns() - before;
    *cost = took <= 4 * clock_read_cost_ns ? took : clock_read_cost_ns;
    return cpu;
}

void window_open(hprof_window *w, uint64_t start_ns)
{
    w->start_ns = start_ns;
    w->last_ns = hprof_config.sampling_clock == HPROF_CLOCK_WALL ? start_ns : window_clock_ns();
    w->clock_open_ns = w->last_ns;
    w->clock_span_ns = 0;
    w->has_cpu_clock = 0;
    if (hprof_config.sampling_clock == HPROF_CLOCK_CPU) {
        w->mpi_ns_since = 0;
        w->has_cpu_clock = pthread_getcpuclockid(pthread_self(), &w->cpu_clock) == 0;
    }
}

void window_close(hprof_window *w, uint64_t now_ns)
{
    w->end_ns = hprof_config.sampling_clock == HPROF_CLOCK_WALL ? now_ns : hprof_now_ns();
    if (now_ns > w->clock_open_ns)
        w->clock_span_ns = now_ns - w->clock_open_ns;
}
