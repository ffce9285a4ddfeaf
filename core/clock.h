/*
 * clock.h - the monotonic clock every MPI call and every sample is timed
 * with, in nanoseconds (core/clock.c): the TSC once calibrated,
 * CLOCK_MONOTONIC before. Every duration hprof stores is a difference of
 * values of this one clock. Reading it allocates nothing, takes no lock
 * and is async-signal-safe.
 */
#ifndef HPROF_CLOCK_H
#define HPROF_CLOCK_H

#include <stdint.h>

/* The clock's state, written once at calibration (use_tsc last, with
 * release order); read inline by hprof_now_ns, the wrappers' hot path. */
typedef struct hprof_tsc_clock {
    int use_tsc;
    uint64_t tsc_base, ns_base;
    uint64_t ns_per_tick_q32; /* ns per tick, fixed point with 32 fractional bits */
} hprof_tsc_clock;
extern hprof_tsc_clock hprof_tsc __attribute__((visibility("hidden")));

uint64_t hprof_gettime_ns(void); /* CLOCK_MONOTONIC, before calibration */

static inline uint64_t hprof_read_tsc(void)
{
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#else
    return 0;
#endif
}

/* A TSC count in the clock's nanoseconds (once calibrated). */
static inline uint64_t hprof_tsc_to_ns(uint64_t tsc)
{
    /* a thread may read a stamp a little older than the base */
    if (__builtin_expect(tsc >= hprof_tsc.tsc_base, 1))
        return hprof_tsc.ns_base +
               (uint64_t)(((unsigned __int128)(tsc - hprof_tsc.tsc_base) * hprof_tsc.ns_per_tick_q32) >> 32);
    return hprof_tsc.ns_base -
           (uint64_t)(((unsigned __int128)(hprof_tsc.tsc_base - tsc) * hprof_tsc.ns_per_tick_q32) >> 32);
}

static inline uint64_t hprof_now_ns(void)
{
    if (__builtin_expect(!__atomic_load_n(&hprof_tsc.use_tsc, __ATOMIC_ACQUIRE), 0))
        return hprof_gettime_ns();
    return hprof_tsc_to_ns(hprof_read_tsc());
}

/* Stamps: the clock read raw, converted to nanoseconds after. A span of a
 * few tens of nanoseconds (a poll's) must hold nothing of hprof's but the
 * reads themselves: hprof_now_ns's loads of hprof_tsc, out of the cache
 * when such spans are far apart, would be in it. A stamp is the TSC's
 * count where the clock is the TSC (HPROF_STAMP_TSC), else nanoseconds;
 * who reads one keeps its kind, hprof_stamp_kind()'s, at hand. */
enum {
    HPROF_STAMP_TSC = 1,
    HPROF_STAMP_NS = 2
};

static inline int hprof_stamp_kind(void)
{
    return __atomic_load_n(&hprof_tsc.use_tsc, __ATOMIC_ACQUIRE) ? HPROF_STAMP_TSC : HPROF_STAMP_NS;
}

static inline uint64_t hprof_stamp_read(int kind)
{
    return kind == HPROF_STAMP_TSC ? hprof_read_tsc() : hprof_gettime_ns();
}

/* hprof_stamp_read once every instruction before it has completed (lfence;
 * rdtsc, as the kernel's clock_gettime reads it): the end of a span that
 * short, out-of-order work precedes (a poll), which a plain rdtsc may read
 * before that work is done. */
static inline uint64_t hprof_stamp_read_after(int kind)
{
#if defined(__x86_64__)
    if (kind == HPROF_STAMP_TSC) {
        __asm__ volatile("lfence" ::: "memory");
        return __builtin_ia32_rdtsc();
    }
#endif
    return hprof_stamp_read(kind);
}

static inline uint64_t hprof_stamp_ns(int kind, uint64_t stamp)
{
    return kind == HPROF_STAMP_TSC ? hprof_tsc_to_ns(stamp) : stamp;
}

/* The span from stamp a to stamp b (both of kind), in nanoseconds: 0
 * when b is not after a. One product where the stamps are the TSC's. */
static inline uint64_t hprof_stamp_span_ns(int kind, uint64_t a, uint64_t b)
{
    uint64_t d = b > a ? b - a : 0;
    return kind == HPROF_STAMP_TSC ? (uint64_t)(((unsigned __int128)d * hprof_tsc.ns_per_tick_q32) >> 32) : d;
}

/* MPI_Init's entry: hprof_now_ns(), and the starting point of the TSC's
 * calibration, which hprof_clock_calibrate() (at the start of the
 * measurement) completes. */
uint64_t hprof_clock_anchor(void);
void hprof_clock_calibrate(void);

#endif
