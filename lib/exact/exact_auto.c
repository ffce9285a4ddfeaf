/*
 * exact_auto.c - see exact_auto.h.
 */
#include "lib/exact/exact_auto.h"

#include <stdlib.h>

#include "core/config.h"
#include "core/log.h"

/* The taken functions' rates over the interval, and their costs. */
static void measure(auto_fn *v, int n, const auto_params *p)
{
    for (int i = 0; i < n; i++) {
        auto_fn *f = &v[i];
        if (f->state != AUTO_TAKEN)
            continue;
        uint64_t d = f->visits > f->last_visits ? f->visits - f->last_visits : 0;
        f->last_visits = f->visits;
        f->rate = p->interval_s > 0 ? (double)d / p->interval_s : 0;
        f->cost = f->rate * p->visit_ns * 1e-9 / (p->threads > 0 ? p->threads : 1);
    }
}

/* Drops what breaks the budget alone, then the costliest until the rest
 * fits; returns the rest's cost. */
static double drop_over_budget(auto_fn *v, int n, double budget)
{
    double sum = 0;
    for (int i = 0; i < n; i++) {
        if (v[i].state == AUTO_TAKEN && v[i].cost > budget)
            v[i].state = AUTO_DROPPED;
        else if (v[i].state == AUTO_TAKEN)
            sum += v[i].cost;
    }
    while (sum > budget) {
        int worst = -1;
        for (int i = 0; i < n; i++)
            if (v[i].state == AUTO_TAKEN && (worst < 0 || v[i].cost > v[worst].cost))
                worst = i;
        if (worst < 0)
            break;
        v[worst].state = AUTO_DROPPED;
        sum -= v[worst].cost;
    }
    return sum;
}

/* New functions on trial: on a path to MPI, or among the AUTO_TOP with
 * the most samples of their own (each at least AUTO_MIN_SHARE); never a
 * pinned one. */
static void take_new(auto_fn *v, int n, const auto_params *p)
{
    for (int i = 0; i < n; i++) {
        if (v[i].state == AUTO_NEW && v[i].on_mpi && !v[i].pinned) {
            v[i].state = AUTO_TAKEN;
            v[i].why = AUTO_WHY_MPI;
            v[i].last_visits = v[i].visits;
        }
    }
    double least = AUTO_MIN_SHARE * (double)p->total_samples;
    for (int k = 0; k < AUTO_TOP; k++) {
        int best = -1;
        for (int i = 0; i < n; i++)
            if (v[i].state == AUTO_NEW && !v[i].pinned && v[i].samples > 0 && (double)v[i].samples >= least &&
                (best < 0 || v[i].samples > v[best].samples))
                best = i;
        if (best < 0)
            break;
        v[best].state = AUTO_TAKEN;
        v[best].why = AUTO_WHY_SAMPLES;
        v[best].last_visits = v[best].visits;
    }
}

double exact_auto_decide(auto_fn *v, int n, const auto_params *p, unsigned char *chosen)
{
    measure(v, n, p);
    double cost = drop_over_budget(v, n, p->budget);
    take_new(v, n, p);
    for (int i = 0; i < n; i++)
        chosen[i] = v[i].state == AUTO_TAKEN;
    return cost;
}

double exact_auto_budget(void)
{
    const char *s = hprof_config.overhead;
    if (!s || !*s)
        return 0.01;
    char *end;
    double pct = strtod(s, &end);
    if (*end || !(pct > 0 && pct <= 100)) {
        hprof_say("HPROF_OVERHEAD='%s' is not a percentage in (0, 100]; using 1", s);
        return 0.01;
    }
    return pct / 100;
}

uint64_t exact_auto_warmup_ns(void)
{
    const char *s = hprof_config.auto_warmup;
    if (!s || !*s)
        return 1000000000ull;
    char *end;
    double sec = strtod(s, &end);
    if (*end || !(sec >= 0 && sec <= 86400)) {
        hprof_say("HPROF_AUTO_WARMUP='%s' is not a number of seconds; using 1", s);
        return 1000000000ull;
    }
    return (uint64_t)(sec * 1e9);
}
