/*
 * sample_pace.h - a thread's sampling rate held to what its handler can
 * afford. A sample costs the thread the handler's time (a walk of its
 * stack; more with Python frames, unwind/python/py_runtime.h); at a high rate, on
 * a busy machine or with costly walks, that time can reach the interval
 * itself, and then the thread does little but take samples (mpi4py at
 * 5-10 kHz never finished). Over each window of PACE_WINDOW counted
 * samples the handler's time, as its middle sample's times PACE_WINDOW
 * (samples preempted inside the handler on a busy machine say nothing of
 * its cost), is set against the time that passed: above PACE_MOST of it
 * in two windows in a row, the thread's timer period doubles (to a
 * second at most); below a quarter of that, it halves again, back to the
 * rate asked for. Sample weights are measured intervals, so a slower rate
 * changes no total, only the resolution.
 *
 * The period itself is drawn at random every PACE_DRAW_EVERY samples,
 * uniformly from half the period in force to one and a half: a timer of
 * fixed period aliases with a program whose loop repeats in a divisor of
 * it (groundtruth.c's 62.5 us cycle against 1 ms), and its samples then
 * land at the same point of the loop, sample after sample, giving one
 * function another's time. A drawn period steps each sample by a random
 * amount through such a loop. Not every sample: re-arming a timer from its
 * own signal's handler costs 8-17 us on these VMs (the clock event device
 * reprogrammed), 40-80 times the handler's own work. The mean rate is the
 * one asked for. Not on the CPU clock: the kernel fires CPU-time timers
 * only at its scheduler ticks, whose fixed grid decides where samples land
 * whatever the period. Async-signal-safe.
 */
#ifndef HPROF_SAMPLE_PACE_H
#define HPROF_SAMPLE_PACE_H

#include <stdint.h>

#define PACE_WINDOW 8
#define PACE_MOST_NUM 1 /* the handler's share of a thread's time: 1/4 at most */
#define PACE_MOST_DEN 4
#define PACE_LONGEST_NS 1000000000ull
#define PACE_DRAW_EVERY 32 /* samples between draws of the period */

typedef struct sample_pace {
    uint64_t nominal_ns, period_ns; /* the period asked for; the one in force */
    uint64_t longest_ns;            /* the longest that was in force */
    uint64_t window_start_ns;
    uint64_t window_spent_ns[PACE_WINDOW]; /* each sample's time in the handler */
    uint32_t window_samples;
    int over;            /* the last window was over PACE_MOST */
    uint64_t rng;        /* xorshift64* state, never 0 */
    uint32_t draws_left; /* samples until the next draw; 0: at the next */
    int draw;            /* the period is drawn (else only set when the pace changes it) */
} sample_pace;

/* seed: anything that differs between threads (their ids); draw: the
 * period is drawn at random (the wall clock's timers). */
void sample_pace_start(sample_pace *p, uint64_t period_ns, uint64_t now_ns, uint64_t seed, int draw);

/* After a counted sample whose handler took spent_ns and ended at now_ns:
 * may change the period in force, which sample_pace_next gives the timer
 * at the next sample. */
void sample_pace_after(sample_pace *p, uint64_t spent_ns, uint64_t now_ns);

/* A period drawn from [period/2, 3 period/2) of the period in force. */
uint64_t sample_pace_draw(sample_pace *p);

/* At every sample, counted or not: the timer's new period when one is due
 * (drawn every PACE_DRAW_EVERY samples; and at the sample after
 * sample_pace_after changed the period in force, drawn or that period),
 * else 0. */
uint64_t sample_pace_next(sample_pace *p);

#endif
