/*
 * sample_pace.c - see sample_pace.h.
 */
#include "lib/sampling/sample_pace.h"

static void new_window(sample_pace *p, uint64_t now_ns)
{
    p->window_start_ns = now_ns;
    p->window_samples = 0;
}

void sample_pace_start(sample_pace *p, uint64_t period_ns, uint64_t now_ns, uint64_t seed, int draw)
{
    p->nominal_ns = p->period_ns = p->longest_ns = period_ns;
    p->over = 0;
    p->rng = (seed ^ now_ns) * 0x9e3779b97f4a7c15ull | 1;
    p->draw = draw;
    p->draws_left = draw ? 0 : UINT32_MAX;
    new_window(p, now_ns);
}

/* The window's middle handler time (the lower of the two middle ones). */
static uint64_t middle(sample_pace *p)
{
    uint64_t *v = p->window_spent_ns;
    for (int i = 1; i < PACE_WINDOW; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            uint64_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return v[(PACE_WINDOW - 1) / 2];
}

/* The period after a window that spent spent of passed in the handler;
 * 0: no change. */
static uint64_t next_period(sample_pace *p, uint64_t spent, uint64_t passed)
{
    int over = spent * PACE_MOST_DEN > passed * PACE_MOST_NUM, was_over = p->over;
    p->over = over;
    if (over && was_over && p->period_ns < PACE_LONGEST_NS) {
        p->over = 0;
        return p->period_ns * 2 < PACE_LONGEST_NS ? p->period_ns * 2 : PACE_LONGEST_NS;
    }
    if (spent * PACE_MOST_DEN * 4 < passed * PACE_MOST_NUM && p->period_ns > p->nominal_ns)
        return p->period_ns / 2 > p->nominal_ns ? p->period_ns / 2 : p->nominal_ns;
    return 0;
}

void sample_pace_after(sample_pace *p, uint64_t spent_ns, uint64_t now_ns)
{
    p->window_spent_ns[p->window_samples] = spent_ns;
    if (++p->window_samples < PACE_WINDOW)
        return;
    uint64_t passed = now_ns > p->window_start_ns ? now_ns - p->window_start_ns : 1;
    uint64_t period = next_period(p, middle(p) * PACE_WINDOW, passed);
    if (period) {
        p->period_ns = period;
        p->draws_left = 0;
        if (period > p->longest_ns)
            p->longest_ns = period;
    }
    new_window(p, now_ns);
}

uint64_t sample_pace_draw(sample_pace *p)
{
    uint64_t x = p->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    p->rng = x;
    uint64_t r = x * 0x2545f4914f6cdd1dull;
    uint64_t half = p->period_ns / 2;
    return half + (r >> 11) % (p->period_ns ? p->period_ns : 1);
}

uint64_t sample_pace_next(sample_pace *p)
{
    if (p->draws_left > 0) {
        p->draws_left--;
        return 0;
    }
    p->draws_left = p->draw ? PACE_DRAW_EVERY - 1 : UINT32_MAX;
    return p->draw ? sample_pace_draw(p) : p->period_ns;
}
