/* sample_pace: lib/sampling/sample_pace.c, a thread's sampling period
 * against its handler's cost, on made-up samples. Prints ok/not ok lines. */
#include <stdint.h>
#include <stdio.h>

#include "lib/sampling/sample_pace.h"

static int failed;

static void expect(const char *name, int ok, uint64_t got, uint64_t want)
{
    if (ok) {
        printf("ok - sample_pace: %s\n", name);
    } else {
        printf("not ok - sample_pace: %s: period %llu ns, want %llu\n", name, (unsigned long long)got,
               (unsigned long long)want);
        failed++;
    }
}

/* n samples a period apart, each spent ns in the handler (one of every
 * `outlier` samples spends long instead, when outlier > 0); the timer
 * runs at the period sample_pace_after keeps in force. */
static void feed(sample_pace *p, uint64_t *now, int n, uint64_t spent, int outlier, uint64_t long_ns)
{
    for (int i = 0; i < n; i++) {
        uint64_t s = outlier && i % outlier == 0 ? long_ns : spent;
        *now += p->period_ns > s ? p->period_ns : s;
        sample_pace_after(p, s, *now);
    }
}

/* The intervals drawn around a period: within [period/2, 3 period/2), a
 * mean of the period, spread evenly (each quarter of the range a quarter of
 * the draws), differing between seeds, and following the period in force. */
static void check_draws(uint64_t nominal)
{
    enum {
        N = 200000
    };
    sample_pace p, q;
    uint64_t now = 12345, lo = UINT64_MAX, hi = 0, quarter[4] = { 0 };
    double sum = 0;
    int same = 0;
    sample_pace_start(&p, nominal, now, 101, 1);
    sample_pace_start(&q, nominal, now, 102, 1);
    for (int i = 0; i < N; i++) {
        uint64_t d = sample_pace_draw(&p);
        same += d == sample_pace_draw(&q);
        lo = d < lo ? d : lo;
        hi = d > hi ? d : hi;
        sum += (double)d;
        if (d >= nominal / 2 && d < nominal * 3 / 2)
            quarter[(d - nominal / 2) * 4 / nominal]++;
    }
    double mean = sum / N;
    expect("draws stay within half and one and a half periods", lo >= nominal / 2 && hi < nominal * 3 / 2,
           lo < nominal / 2 ? lo : hi, nominal);
    expect("their mean is the period, within 0.5%", mean > nominal * 0.995 && mean < nominal * 1.005,
           (uint64_t)mean, nominal);
    int even = 1;
    for (int k = 0; k < 4; k++)
        even &= quarter[k] > N / 4 * 0.97 && quarter[k] < N / 4 * 1.03;
    expect("each quarter of the range gets a quarter of the draws, within 3%", even, quarter[0], N / 4);
    expect("two threads' seeds draw different intervals", same < N / 100, (uint64_t)same, 0);
    p.period_ns = 4 * nominal; /* as sample_pace_after sets it when the handler costs too much */
    sum = 0;
    for (int i = 0; i < N; i++)
        sum += (double)sample_pace_draw(&p);
    expect("a slower pace draws around its own period",
           sum / N > 4 * nominal * 0.995 && sum / N < 4 * nominal * 1.005, (uint64_t)(sum / N), 4 * nominal);
}

/* sample_pace_next: a draw at the first sample, then one every
 * PACE_DRAW_EVERY samples, and at the sample after the pace changed the
 * period. */
static void check_next(uint64_t nominal)
{
    sample_pace p;
    uint64_t now = 0;
    sample_pace_start(&p, nominal, now, 7, 1);
    int draws = 0, first = sample_pace_next(&p) != 0;
    for (int i = 1; i < 10 * PACE_DRAW_EVERY; i++)
        draws += sample_pace_next(&p) != 0;
    expect("the first sample draws a period", first, 0, 1);
    expect("then one sample in PACE_DRAW_EVERY draws", draws == 9, (uint64_t)draws, 9);
    feed(&p, &now, 2 * PACE_WINDOW, 90 * 1000, 0, 0); /* two costly windows: the period doubles */
    uint64_t next = sample_pace_next(&p);
    expect("the sample after the pace changed the period draws around the new one",
           next >= nominal && next < 3 * nominal, next, 2 * nominal);

    sample_pace_start(&p, nominal, now, 7, 0); /* the CPU clock: no draw */
    int set = 0;
    for (int i = 0; i < 10 * PACE_DRAW_EVERY; i++)
        set += sample_pace_next(&p) != 0;
    expect("without draws, no sample sets the period", set == 0, (uint64_t)set, 0);
    feed(&p, &now, 2 * PACE_WINDOW, 90 * 1000, 0, 0);
    next = sample_pace_next(&p);
    expect("without draws, the sample after the pace changed the period sets that period",
           next == 2 * nominal, next, 2 * nominal);
    expect("and the next does not", sample_pace_next(&p) == 0, 0, 0);
}

int main(void)
{
    const uint64_t us = 1000, nominal = 100 * us; /* 10 kHz */
    sample_pace p;
    uint64_t now = 0;

    sample_pace_start(&p, nominal, now, 1, 1);
    feed(&p, &now, 400, 10 * us, 0, 0);
    expect("a handler at a tenth of the interval keeps the rate", p.period_ns == nominal, p.period_ns,
           nominal);

    feed(&p, &now, 400, 10 * us, PACE_WINDOW, 50 * 1000 * us);
    expect("one sample preempted for 50 ms in each window keeps the rate", p.period_ns == nominal,
           p.period_ns, nominal);

    feed(&p, &now, 400, 10 * us, 3, 20 * 1000 * us);
    expect("three in eight preempted for 20 ms keep the rate", p.period_ns == nominal, p.period_ns, nominal);

    feed(&p, &now, PACE_WINDOW, 90 * us, 0, 0);
    expect("one costly window keeps the rate", p.period_ns == nominal, p.period_ns, nominal);

    feed(&p, &now, PACE_WINDOW, 90 * us, 0, 0);
    expect("two in a row halve it", p.period_ns == 2 * nominal, p.period_ns, 2 * nominal);

    feed(&p, &now, 40 * PACE_WINDOW, 150 * us, 0, 0); /* more than the interval: the livelock */
    expect("a handler longer than the interval: the period grows until it costs at most a quarter",
           p.period_ns >= 4 * 150 * us && p.period_ns <= 2 * 4 * 150 * us, p.period_ns, 4 * 150 * us);
    uint64_t slow = p.period_ns;
    expect("the longest period is kept", p.longest_ns == slow, p.longest_ns, slow);

    feed(&p, &now, 40 * PACE_WINDOW, 2 * us, 0, 0);
    expect("a cheap handler again: back to the rate asked for", p.period_ns == nominal, p.period_ns, nominal);
    expect("the longest period stays on record", p.longest_ns == slow, p.longest_ns, slow);

    sample_pace_start(&p, nominal, now, 1, 1);
    feed(&p, &now, 2000 * PACE_WINDOW, 3000 * 1000 * us, 0, 0); /* 3 s a sample */
    expect("never slower than one sample a second", p.period_ns == PACE_LONGEST_NS, p.period_ns,
           PACE_LONGEST_NS);

    check_draws(nominal);
    check_next(nominal);
    return failed != 0;
}
