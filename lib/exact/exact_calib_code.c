/*
 * exact_calib_code.c - see exact_calib_code.h. Each function has a
 * patchable entry as -fpatchable-function-entry=18,16 makes it.
 */
#include "lib/exact/exact_calib_code.h"

#include <time.h>

/* noclone (GCC's: no specialized copy without the entry) is unknown to clang,
 * which does not clone a function that keeps a patchable entry anyway. */
#if defined(__clang__)
#define PATCHABLE __attribute__((noinline, patchable_function_entry(18, 16)))
#else
#define PATCHABLE __attribute__((noinline, noclone, patchable_function_entry(18, 16)))
#endif

PATCHABLE unsigned exact_calib_measured(unsigned x)
{
    __asm__ volatile("" : "+r"(x));
    return x * 2654435761u + 1;
}

PATCHABLE unsigned exact_calib_plain(unsigned x)
{
    __asm__ volatile("" : "+r"(x));
    return x * 2654435761u + 1;
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The least CPU time of rounds loops of calls calls of f, each call taking
 * the previous one's result. */
static __attribute__((noinline)) uint64_t least_loop_ns(unsigned (*f)(unsigned), unsigned calls,
                                                        unsigned rounds)
{
    uint64_t best = UINT64_MAX;
    unsigned x = 1;
    for (unsigned r = 0; r < rounds; r++) {
        uint64_t t0 = thread_cpu_ns();
        for (unsigned i = 0; i < calls; i++)
            x = f(x);
        uint64_t dt = thread_cpu_ns() - t0;
        best = dt < best ? dt : best;
    }
    __asm__ volatile("" ::"r"(x));
    return best;
}

void *exact_calib_thread(void *arg)
{
    exact_calib_run *run = arg;
    run->setup(run);
    least_loop_ns(exact_calib_measured, 64, 1); /* the walk, once, and the memo */
    least_loop_ns(exact_calib_plain, 64, 1);
    run->measured_ns = least_loop_ns(exact_calib_measured, run->calls, run->rounds);
    run->plain_ns = least_loop_ns(exact_calib_plain, run->calls, run->rounds);
    run->teardown(run);
    return NULL;
}
