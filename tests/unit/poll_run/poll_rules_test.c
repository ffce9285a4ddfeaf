/*
 * poll_rules_test.c - the poll-run rules (lib/polls/poll_rules.h) without MPI,
 * threads or real clocks: synthetic clock readings in, the rules'
 * decisions out. Prints one "ok - NAME" or "not ok - NAME: reason" per
 * check (tests/unit/poll_run_rules.sh builds and runs it).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/polls/poll_rules.h"

static int failures;

static void check(int cond, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void check(int cond, const char *name, const char *fmt, ...)
{
    if (cond) {
        printf("ok - poll rules: %s\n", name);
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    printf("not ok - poll rules: %s: ", name);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failures++;
}

/* A run opened at end_ns with one entry (the loop's one call site). */
static void open_run(struct hprof_poll_run *r, uint64_t end_ns, uint64_t first_ns)
{
    memset(r, 0, sizeof *r);
    poll_rules_open(r, (const void *)r, end_ns, first_ns, 12345u);
    r->nnodes = 1;
    r->nodes[0].node = 1;
}

/* A small deterministic generator for the synthetic loops. */
static uint64_t lcg_state = 88172645463325252ull;
static uint64_t next_rand(void)
{
    lcg_state ^= lcg_state << 13;
    lcg_state ^= lcg_state >> 7;
    lcg_state ^= lcg_state << 17;
    return lcg_state;
}

static void strides(void)
{
    struct hprof_poll_run r;
    memset(&r, 0, sizeof r);
    r.rng = 0x9e3779b9u;
    r.n = 64;
    uint64_t sum = 0;
    uint32_t lo = ~0u, hi = 0;
    enum {
        DRAWS = 200000
    };
    for (int i = 0; i < DRAWS; i++) {
        uint32_t s = poll_rules_draw_stride(&r);
        sum += s;
        lo = s < lo ? s : lo;
        hi = s > hi ? s : hi;
    }
    double mean = (double)sum / DRAWS;
    check(lo == 1 && hi == 127, "strides run from 1 to 2N-1", "N 64: from %u to %u", lo, hi);
    check(fabs(mean - 64) < 0.02 * 64, "strides have the mean N", "N 64: mean %.2f", mean);
    r.n = 1;
    int ones = 1;
    for (int i = 0; i < 1000; i++)
        ones &= poll_rules_draw_stride(&r) == 1;
    check(ones, "N of 1 times every poll", "a stride other than 1");
}

static void pace(void)
{
    struct hprof_poll_run r;
    open_run(&r, 1000, 50);
    check(r.n == POLL_N_FIRST && r.stride >= 1 && r.stride <= 2 * POLL_N_FIRST - 1 && r.due == r.stride - 1,
          "a run starts at N = POLL_N_FIRST", "n %u stride %u due %u", r.n, r.stride, r.due);
    /* 10 polls of a loop at 500 ns an iteration, a poll timed every 20 us: N = 40 */
    r.stride = 10;
    poll_rules_pace(&r, 1000 + 10 * 500, 20000);
    check(r.n == 40 && r.timed_at_ns == 6000 && r.due == r.stride - 1,
          "N puts a timed poll every HPROF_POLL_STRIDE_US", "n %u (want 40), timed_at %llu", r.n,
          (unsigned long long)r.timed_at_ns);
    r.stride = 4;
    poll_rules_pace(&r, r.timed_at_ns + 4 * 3, 20000);
    check(r.n == POLL_N_MAX, "N at most POLL_N_MAX", "n %u", r.n);
    r.stride = 2;
    poll_rules_pace(&r, r.timed_at_ns + 2 * 1000000, 20000);
    check(r.n == 1, "a loop slower than the stride times every poll", "n %u", r.n);
    r.stride = 8;
    poll_rules_pace(&r, r.timed_at_ns, 20000);
    check(r.n == POLL_N_MAX, "no time between timed polls: N at most", "n %u", r.n);
}

static void estimate(void)
{
    struct hprof_poll_run r;
    open_run(&r, 1000, 70);
    check(poll_rules_node_mean(&r, 0) == 70 && poll_rules_run_mean(&r) == 70,
          "before any timed poll, the opening poll's time", "mean %llu",
          (unsigned long long)poll_rules_node_mean(&r, 0));
    r.prior_mean_ns = 40;
    check(poll_rules_node_mean(&r, 0) == 40, "before any timed poll, the thread's last run's mean",
          "mean %llu", (unsigned long long)poll_rules_node_mean(&r, 0));
    poll_rules_timed(&r, 0, 30);
    poll_rules_timed(&r, 0, 50);
    check(poll_rules_node_mean(&r, 0) == 40 && r.timed == 2 && r.nodes[0].seg_timed == 2 && r.pending == 2,
          "timed polls make the node's mean", "mean %llu timed %u",
          (unsigned long long)poll_rules_node_mean(&r, 0), r.timed);
    check(poll_rules_estimate(&r, 0, 1000 + 25) == 25 && poll_rules_estimate(&r, 0, 5000) == 40,
          "an untimed poll: the mean, at most the time since the credit", "%llu %llu",
          (unsigned long long)poll_rules_estimate(&r, 0, 1025),
          (unsigned long long)poll_rules_estimate(&r, 0, 5000));

    /* three entries: 8 polls on entry 0 (2 timed now: 80 ns, mean 40), 4 on
     * entry 1 (10 timed before, 1000 ns: mean 100), 2 on entry 2 (none
     * timed: the run's mean, 1080 / 12 = 90) */
    open_run(&r, 1000, 100);
    r.nnodes = 3;
    r.nodes[1].node = 2;
    r.nodes[1].timed_ns = 1000;
    r.nodes[1].timed = 10;
    r.nodes[2].node = 3;
    r.pending = 6; /* entry 0, the latest, had 6 + the 2 timed */
    poll_rules_timed(&r, 0, 30);
    poll_rules_timed(&r, 0, 50);
    poll_rules_end_streak(&r);
    r.last = 1;
    r.pending += 4;
    poll_rules_end_streak(&r);
    r.last = 2;
    r.pending += 2;
    uint64_t ns[HPROF_POLL_RUN_NODES];
    uint32_t polls[HPROF_POLL_RUN_NODES];
    poll_rules_credit(&r, 1000 + 100000, 0, ns, polls);
    check(polls[0] == 8 && polls[1] == 4 && polls[2] == 2 && ns[0] == 80 + 6 * 40 && ns[1] == 4 * 100 &&
              ns[2] == 2 * 90,
          "a credit: timed polls as timed, the others at their node's mean (or the run's)",
          "polls %u %u %u, ns %llu %llu %llu", polls[0], polls[1], polls[2], (unsigned long long)ns[0],
          (unsigned long long)ns[1], (unsigned long long)ns[2]);
    uint32_t pending = r.pending;
    uint32_t due = r.due;
    poll_rules_credited(&r, 101000);
    check(r.pending == 0 && r.read_ns == 101000 && r.due == (due > pending ? due - pending : 0) &&
              r.nodes[0].polls == 0 && r.nodes[0].seg_ns == 0,
          "a credit settles the polls since the last", "pending %u read %llu", r.pending,
          (unsigned long long)r.read_ns);
    /* 8 polls on entry 0 and 4 on entry 1 (at their means: 320 + 400 ns) in
     * a span of 300 ns, 100 of it the ending call's own */
    r.last = 0;
    r.nodes[1].polls = 4;
    r.pending = 12; /* 8 on the latest, entry 0 */
    r.streak_from = 4;
    poll_rules_credit(&r, 101000 + 300, 100, ns, polls);
    check(polls[0] == 8 && polls[1] == 4 && polls[2] == 0 && ns[0] == 320 * 200 / 720 &&
              ns[1] == 400 * 200 / 720,
          "an estimate beyond the span is cut to it, in proportion", "ns %llu %llu",
          (unsigned long long)ns[0], (unsigned long long)ns[1]);
}

static void lumps(void)
{
    struct hprof_poll_run r;
    open_run(&r, 1000, 100);
    poll_rules_timed(&r, 0, 5000);
    check(r.cpu_lump_ns == 0 && r.nodes[0].seg_ns == 5000, "no lump before a mean is known", "lump %llu",
          (unsigned long long)r.cpu_lump_ns);
    open_run(&r, 1000, 100);
    r.nodes[0].timed_ns = 400;
    r.nodes[0].timed = 10;
    r.timed = 10; /* mean 40 */
    poll_rules_timed(&r, 0, 16 * 40 + 1);
    check(r.cpu_lump_ns == 0, "16 times the mean but not 2 us above: not a lump", "lump %llu",
          (unsigned long long)r.cpu_lump_ns);
    uint64_t mean = poll_rules_node_mean(&r, 0); /* 94: the poll above counted */
    poll_rules_timed(&r, 0, mean + POLL_LUMP_ABOVE_NS + 1);
    check(r.cpu_lump_ns == POLL_LUMP_ABOVE_NS + 1 && r.nodes[0].timed == 11 && r.pending == 2 &&
              r.nodes[0].seg_ns == 16 * 40 + 1 + mean,
          "a lump counts its mean, the rest is held", "lump %llu timed %u", (unsigned long long)r.cpu_lump_ns,
          r.nodes[0].timed);
    r.last = 0;
    uint64_t before = r.nodes[0].seg_ns, lump = r.cpu_lump_ns;
    poll_rules_bookkeeping(&r, 3000);
    check(r.nodes[0].seg_ns == before + 3000 && r.cpu_lump_ns == lump,
          "a timed poll's bookkeeping is its time", "seg %llu", (unsigned long long)r.nodes[0].seg_ns);
    poll_rules_bookkeeping(&r, POLL_BOOKKEEPING_MAX_NS + 7000);
    check(r.nodes[0].seg_ns == before + 3000 + POLL_BOOKKEEPING_MAX_NS && r.cpu_lump_ns == lump + 7000,
          "bookkeeping beyond 10 us is held as a lump", "seg %llu lump %llu",
          (unsigned long long)r.nodes[0].seg_ns, (unsigned long long)r.cpu_lump_ns);
    check(poll_rules_timed_ns(100, 180, 20) == 60 && poll_rules_timed_ns(100, 110, 20) == 0,
          "a timed poll less the clock's own part", "%llu",
          (unsigned long long)poll_rules_timed_ns(100, 180, 20));
}

static void off_cpu(void)
{
    struct hprof_poll_run r;
    open_run(&r, 1000, 100);
    r.cpu_credited_ns = 50000;
    check(poll_rules_cpu_due(&r, 1000 + POLL_CPU_FIRST_NS - 1, 0) == 0 &&
              poll_rules_cpu_due(&r, 1000 + POLL_CPU_FIRST_NS, 0) == 1,
          "the CPU clock is first read POLL_CPU_FIRST_NS into a run", "%s", "no");
    r.cpu_credited_ns = 0;
    check(poll_rules_cpu_due(&r, 1000 + POLL_CPU_FIRST_NS, 0) == 0, "nothing credited: no read", "%s", "no");
    poll_rules_cpu_read(&r, 500000, 7000000);
    r.cpu_credited_ns = POLL_CPU_CREDIT_NS - 1;
    int before = poll_rules_cpu_due(&r, 600000, 0);
    r.cpu_credited_ns = POLL_CPU_CREDIT_NS;
    check(before == 0 && poll_rules_cpu_due(&r, 600000, 0) == 2,
          "then at a timed poll once 1 ms was credited", "%s", "no");
    r.cpu_credited_ns = 10;
    check(poll_rules_cpu_due(&r, 500000 + POLL_CPU_MAX_NS, 0) == 2, "or once 100 ms went by", "%s", "no");
    check(poll_rules_cpu_due(&r, 600000, 1) == 0, "at a sample, not below 100 us credited", "%s", "no");
    r.cpu_credited_ns = POLL_CPU_SAMPLE_NS;
    check(poll_rules_cpu_due(&r, 600000, 1) == 2, "at a sample once 100 us were credited", "%s", "no");

    /* 10 ms of wall time since the read, 6 ms on the CPU: 4 ms off it. The
     * polls were credited 1.5 ms of the 6 on the CPU: theirs is a quarter. */
    open_run(&r, 1000, 100);
    poll_rules_cpu_read(&r, 1000000, 5000000);
    r.cpu_credited_ns = 1500000;
    uint64_t share, add = poll_rules_off_cpu(&r, 11000000, 11000000, ~0ull, &share);
    check(share == 1000000 && add == 1000000, "time off the CPU split as the time on it",
          "share %llu add %llu (want 1000000)", (unsigned long long)share, (unsigned long long)add);
    check(r.on_credited_ns == 1500000 && r.on_ns == 6000000, "over the run's reads", "%s", "no");
    /* a held lump of 5 ms, 4 ms off the CPU: 1 ms was the polls' own work */
    open_run(&r, 1000, 100);
    poll_rules_cpu_read(&r, 1000000, 5000000);
    r.cpu_credited_ns = 1500000;
    r.cpu_lump_ns = 5000000;
    add = poll_rules_off_cpu(&r, 11000000, 11000000, ~0ull, &share);
    check(share == 1000000 && add == 2000000,
          "a held lump the CPU clock does not show off it: the polls' work", "share %llu add %llu",
          (unsigned long long)share, (unsigned long long)add);
    /* never beyond what the span left uncredited, nor the sampler's interval */
    open_run(&r, 1000, 100);
    poll_rules_cpu_read(&r, 1000000, 5000000);
    r.cpu_credited_ns = 1500000;
    r.cpu_lump_ns = 5000000;
    add = poll_rules_off_cpu(&r, 11000000, 11000000, 1200000, &share);
    check(add == 1200000 && share == 200000, "at most the sampler's interval", "share %llu add %llu",
          (unsigned long long)share, (unsigned long long)add);
    open_run(&r, 1000, 100);
    poll_rules_cpu_read(&r, 1000000, 5000000);
    r.cpu_credited_ns = 9500000;
    add = poll_rules_off_cpu(&r, 11000000, 14000000, ~0ull, &share);
    check(add == 500000, "at most the span's time not yet credited", "add %llu", (unsigned long long)add);
    /* the split by credit */
    open_run(&r, 1000, 100);
    r.nnodes = 3;
    r.nodes[0].cpu_credited_ns = 100;
    r.nodes[1].cpu_credited_ns = 300;
    r.nodes[2].cpu_credited_ns = 600;
    uint64_t part[HPROF_POLL_RUN_NODES];
    poll_rules_by_credit(&r, 1001, 1000, part);
    check(part[0] == 100 && part[1] == 300 && part[2] == 601,
          "time off the CPU by each entry's credit, all of it", "%llu %llu %llu", (unsigned long long)part[0],
          (unsigned long long)part[1], (unsigned long long)part[2]);
}

/* A synthetic polling loop: polls of about poll_ns (jittered), computation
 * of comp_ns between them, driven as poll_run.c drives the rules (the
 * clock's part 0). The credited MPI time against the polls' true time,
 * less the means' rounding (whole ns: up to 1 ns an untimed poll, below),
 * relative to the truth. */
static double loop_error(uint64_t poll_ns, uint64_t comp_ns, int npolls, uint64_t *visits_out)
{
    struct hprof_poll_run r;
    uint64_t now = 1000000, truth = 0, credited = 0, visits = 0;
    uint64_t ns[HPROF_POLL_RUN_NODES];
    uint32_t polls[HPROF_POLL_RUN_NODES];
    uint64_t first = poll_ns;
    now += first;
    open_run(&r, now, first + 300); /* the opening poll, hprof's walk in it */
    for (int k = 0; k < npolls; k++) {
        now += comp_ns;
        uint64_t d = poll_ns / 2 + next_rand() % (poll_ns + 1); /* mean poll_ns */
        uint64_t start = now;
        now += d;
        truth += d;
        if (r.pending == r.due) {
            poll_rules_timed(&r, 0, poll_rules_timed_ns(start, now, 0));
            poll_rules_credit(&r, now, 0, ns, polls);
            if (polls[0]) {
                credited += ns[0];
                visits += polls[0];
            }
            poll_rules_credited(&r, now);
            poll_rules_pace(&r, now, 20000);
        } else {
            r.pending++;
        }
    }
    poll_rules_credit(&r, now, 0, ns, polls);
    if (polls[0]) {
        credited += ns[0];
        visits += polls[0];
    }
    poll_rules_credited(&r, now);
    *visits_out = visits;
    double rounding = (double)npolls * 0.5; /* on average half a ns an untimed poll */
    return ((double)credited + rounding - (double)truth) / (double)truth;
}

static void loops(void)
{
    uint64_t visits;
    double e = loop_error(60, 0, 2000000, &visits);
    check(fabs(e) < 0.01 && visits == 2000000,
          "a loop that only polls: its MPI time within 1% (less the means' rounding), every visit",
          "error %.4f, visits %llu", e, (unsigned long long)visits);
    e = loop_error(60, 500, 500000, &visits);
    check(fabs(e) < 0.01 && visits == 500000,
          "a loop that computes between its polls: within 1% (less the rounding), every visit",
          "error %.4f, visits %llu", e, (unsigned long long)visits);
    e = loop_error(2000, 30000, 20000, &visits);
    check(fabs(e) < 0.001 && visits == 20000,
          "a loop slower than the stride: every poll timed from the first stride on, within 0.1%",
          "error %.6f", e);
}

/* A clock that moves in steps of 10 ns (this VM's TSC: 21 ticks) read
 * twice, cost_ns apart, at a random phase: the pair's reading, 10 ns
 * times the steps crossed. */
static uint64_t stepped_pair(double cost_ns)
{
    double t0 = (double)(next_rand() % 10000) / 1000.0; /* the phase, 0-10 ns */
    return 10 * (uint64_t)((t0 + cost_ns) / 10.0);
}

/* The tracked part's mean over n more samples of pairs costing cost_ns,
 * one in every `outlier` (0: none) stretched to a millisecond. */
static double part_over(struct hprof_poll_run *r, double cost_ns, int n, int outlier)
{
    double sum = 0;
    for (int k = 1; k <= n; k++)
        sum +=
            (double)poll_rules_clock_part(r, outlier && k % outlier == 0 ? 1000000 : stepped_pair(cost_ns));
    return sum / n;
}

static void clock_part(void)
{
    struct hprof_poll_run r;
    memset(&r, 0, sizeof r);
    r.clock_part_q8 = 20 << 8; /* a median measured once: 20, where the pairs cost 26.3 */
    part_over(&r, 26.3, 300, 0);
    double m = part_over(&r, 26.3, 2000, 0);
    check(fabs(m - 26.3) < 0.7,
          "the clock's part is the mean of pairs read in steps, not their median (20 or 30)",
          "%.2f ns for 26.3", m);
    m = part_over(&r, 26.3, 4000, 200);
    check(fabs(m - 26.3) < 1.0, "a pair stretched by an interrupt once in 200 moves the part little",
          "%.2f ns for 26.3", m);
    part_over(&r, 16.3, 150, 0);
    m = part_over(&r, 16.3, 1000, 0);
    check(fabs(m - 16.3) < 0.7, "the part follows the clock's cost when it changes (26.3 -> 16.3 ns)",
          "%.2f ns for 16.3", m);
    uint64_t start[] = { 1, 80 };
    for (int i = 0; i < 2; i++) {
        r.clock_part_q8 = (uint32_t)(start[i] << 8);
        part_over(&r, 10.5, 300, 0);
        m = part_over(&r, 10.5, 1000, 0);
        check(fabs(m - 10.5) < 0.7,
              i ? "a part measured high at the start is corrected in 300 timed polls"
                : "a part measured low at the start is corrected in 300 timed polls",
              "from %llu ns: %.2f ns for 10.5", (unsigned long long)start[i], m);
    }
}

/* A run opened, n polls credited in it, ended. */
static void run_of(struct hprof_poll_run *r, uint32_t n)
{
    poll_rules_open(r, (const void *)r, 1000, 100, 12345u);
    r->nnodes = 1;
    r->pending = n;
    uint64_t ns[HPROF_POLL_RUN_NODES];
    uint32_t polls[HPROF_POLL_RUN_NODES];
    poll_rules_credit(r, 2000, 0, ns, polls);
    poll_rules_credited(r, 2000);
    poll_rules_ended(r);
}

/* Polls that may open a run among the next n that would. */
static int opens_allowed(struct hprof_poll_run *r, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += poll_rules_may_open(r);
    return k;
}

static void short_runs(void)
{
    struct hprof_poll_run r;
    memset(&r, 0, sizeof r);
    for (int i = 0; i < POLL_SHORT_RUNS - 1; i++)
        run_of(&r, POLL_RUN_WORTH - 1);
    check(poll_rules_may_open(&r), "runs keep opening after fewer short runs in a row than the limit",
          "a poll may not open one after %d runs of %d polls", POLL_SHORT_RUNS - 1, POLL_RUN_WORTH - 1);
    run_of(&r, POLL_RUN_WORTH);
    for (int i = 0; i < POLL_SHORT_RUNS - 1; i++)
        run_of(&r, 1);
    check(poll_rules_may_open(&r), "a run worth opening starts the count of short runs again",
          "a poll may not open one");
    run_of(&r, 1);
    int k = opens_allowed(&r, POLL_OPENS_SKIPPED);
    check(k == 0 && poll_rules_may_open(&r),
          "after that many short runs, the next polls open none, then one may",
          "%d of the next %d opened one", k, POLL_OPENS_SKIPPED);
    run_of(&r, 2);
    k = opens_allowed(&r, POLL_OPENS_SKIPPED);
    check(k == 0 && poll_rules_may_open(&r), "one more short run then skips the opens again",
          "%d of the next %d opened one", k, POLL_OPENS_SKIPPED);
    run_of(&r, 1000);
    check(poll_rules_may_open(&r) && r.short_runs == 0, "a long run ends the skipping", "short runs %u",
          r.short_runs);
    poll_rules_open(&r, (const void *)&r, 1000, 100, 1u);
    r.nnodes = 1;
    uint64_t ns[HPROF_POLL_RUN_NODES];
    uint32_t polls[HPROF_POLL_RUN_NODES];
    for (int i = 0; i < 3; i++) { /* three credits of 2 polls: one run of 6 */
        r.pending = 2;
        poll_rules_credit(&r, 2000 + (uint64_t)i, 0, ns, polls);
        poll_rules_credited(&r, 2000 + (uint64_t)i);
    }
    check(r.run_polls == 6, "a run's polls add up over its credits", "run_polls %u", r.run_polls);
}

int main(void)
{
    strides();
    pace();
    estimate();
    lumps();
    off_cpu();
    loops();
    clock_part();
    short_runs();
    return failures ? 1 : 0;
}
