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
 * follows what sample_pace_after says. */
static void feed(sample_pace *p, uint64_t *now, int n, uint64_t spent, int outlier, uint64_t long_ns)
{
    for (int i = 0; i < n; i++) {
        uint64_t s = outlier && i % outlier == 0 ? long_ns : spent;
        *now += p->period_ns > s ? p->period_ns : s;
        sample_pace_after(p, s, *now);
    }
}

int main(void)
{
    const uint64_t us = 1000, nominal = 100 * us; /* 10 kHz */
    sample_pace p;
    uint64_t now = 0;

    sample_pace_start(&p, nominal, now);
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

    sample_pace_start(&p, nominal, now);
    feed(&p, &now, 2000 * PACE_WINDOW, 3000 * 1000 * us, 0, 0); /* 3 s a sample */
    expect("never slower than one sample a second", p.period_ns == PACE_LONGEST_NS, p.period_ns,
           PACE_LONGEST_NS);
    return failed != 0;
}
