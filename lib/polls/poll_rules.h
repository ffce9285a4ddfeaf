/*
 * poll_rules.h - the rules of a polling run (poll_run.h says what they
 * are and why) as pure functions of the run's state and clock readings:
 * which polls are timed (the strides and their adaptive mean), the
 * estimate of the polls' MPI time (node and run means, cut to the span),
 * lumps (a timed poll far above its mean, a timed poll's long
 * bookkeeping), and the split of the time off the CPU between the polls
 * and the rest. No globals, no MPI, no thread state, no clock reads: the
 * caller (poll_run.c) reads the clocks, hands the readings in and applies
 * what comes out to the thread's tree, time line and sampling window;
 * tests/unit/poll_run drives them with synthetic clocks. Static inline,
 * so that a timed poll's bookkeeping calls nothing it did not call before.
 */
#ifndef HPROF_POLL_RULES_H
#define HPROF_POLL_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "unwind/unwind.h" /* unwind_token: the run's frame is vouched for */

#define HPROF_POLL_RUN_NODES 4 /* call sites a polling loop takes in turn */

#define POLL_N_FIRST 8                /* the mean N as a run starts, until its loop's pace is known */
#define POLL_N_MAX 4096               /* at most this mean N */
#define POLL_CPU_FIRST_NS 200000      /* the thread's CPU clock read from this far into a run ... */
#define POLL_CPU_CREDIT_NS 1000000    /* ... then at a timed poll once this much MPI time was credited ... */
#define POLL_CPU_MAX_NS 100000000     /* ... or this long went by; at a sample once ... */
#define POLL_CPU_SAMPLE_NS 100000     /* ... this much was */
#define POLL_LUMP_TIMES 16            /* a timed poll this many times its mean ... */
#define POLL_LUMP_ABOVE_NS 2000       /* ... and this far above it: most likely descheduled in it */
#define POLL_BOOKKEEPING_MAX_NS 10000 /* a timed poll's bookkeeping, more: descheduled in it */
#define POLL_RUN_WORTH 4              /* a run that joined fewer polls cost more than it saved; */
#define POLL_SHORT_RUNS 8             /* this many of them in a row, and ... */
#define POLL_OPENS_SKIPPED 256        /* ... this many polls open no run (then one may again) */

/* A thread's run of polls that complete nothing (kept in its state, thread.h).
 * A poll of the lean path (poll_run.h: joins on the latest entry, not
 * timed, completes nothing) reads and writes the first POLL_LEAN_BYTES
 * only, then the caller's token: thread.h puts the first on the line of
 * the thread's depth, the token whole on the next; in a loop whose own
 * work evicts hprof's state between polls, every further line is a miss
 * a poll. */
struct hprof_poll_run {
    /* the lean path's fields */
    const void *frame;          /* the run's frame; NULL: no run */
    uint32_t pending;           /* polls since read_ns: visits counted, time to come */
    uint32_t due;               /* pending polls when the next poll is timed */
    uint32_t stamp_kind;        /* how a timed poll's span is read (clock.h's stamps) */
    uint32_t last;              /* the entry of the latest poll */
    int fn;                     /* the latest entry's function */
    uint64_t ra, bp;            /* the latest poll's wrapper frame: its return address and saved rbp */
    uint64_t bp_mask;           /* ~0: the rbp tells call paths apart there, else 0 */
    unwind_token caller;        /* the frame's caller unchanged since its entries were made */
    uint64_t read_ns;           /* the last credit: the polls' time is credited up to here */
    uint64_t open_ns;           /* the run's start */
    uint64_t first_ns;          /* the opening poll's time: the estimate before any poll was timed */
    uint32_t stride;            /* polls from the last timed poll (or the opening) to the next timed one */
    uint32_t n;                 /* the mean stride drawn (N) */
    uint64_t timed_at_ns;       /* the end of the last timed poll (or of the opening) */
    uint32_t rng;               /* the strides' random state (xorshift) */
    uint32_t timed;             /* timed polls in the run (lumps left out) */
    uint32_t tallied;           /* pending polls counted as repeats or not when added (the others are) */
    uint32_t streak_from;       /* pending polls when the latest entry became the latest */
    uint64_t cpu_ns, cpu_at_ns; /* the thread's CPU clock read in the run, and the time then (0: none) */
    uint64_t cpu_credited_ns;   /* MPI time credited since then */
    uint64_t cpu_lump_ns;       /* timed polls' time far above their mean, held since then */
    uint64_t on_credited_ns, on_ns; /* over the run's reads: MPI time credited, time on the CPU */
    uint32_t nnodes;                /* the nodes met in the run */
    struct hprof_poll_node {
        uint32_t node, site; /* the node, and its call site's node (unwind_mpi_cached) */
        int fn;
        uint32_t polls;           /* pending polls on it */
        uint64_t timed_ns;        /* its timed polls in the run (outliers left out): their time, */
        uint32_t timed;           /* and how many */
        uint32_t seg_timed;       /* its timed polls since read_ns (outliers too), */
        uint64_t seg_ns;          /* and their time */
        uint64_t cpu_credited_ns; /* MPI time credited to it since the CPU clock's read */
    } nodes[HPROF_POLL_RUN_NODES];
    uint64_t prior_mean_ns; /* the mean timed poll of the thread's last run that had one */
    uint32_t run_polls;     /* polls credited in the run so far */
    uint32_t short_runs;    /* runs in a row that joined fewer than POLL_RUN_WORTH polls */
    uint32_t opens_skipped; /* polls left that open no run (poll_rules_may_open) */
    uint32_t clock_part_q8; /* the clock's own part in a timed poll, tracked, in 1/256 ns (0: none yet) */
    uint32_t clock_pair_ns; /* the latest timed poll's end to a read right after it: a sample of it */
};

#define POLL_LEAN_BYTES 56 /* the lean path's fields, from the run's start */
_Static_assert(offsetof(struct hprof_poll_run, bp_mask) + sizeof(uint64_t) == POLL_LEAN_BYTES &&
                   offsetof(struct hprof_poll_run, caller) == POLL_LEAN_BYTES,
               "the lean poll path's fields come first, the caller's token right after them");

/* ---- which polls are timed ------------------------------------------------ */

/* A stride of 1 to 2n-1 polls (mean n), drawn: no loop's period aliases
 * with the timed polls. */
static inline uint32_t poll_rules_draw_stride(struct hprof_poll_run *r)
{
    uint32_t x = r->rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    r->rng = x;
    return r->n <= 1 ? 1 : 1 + (uint32_t)(((uint64_t)x * (2 * r->n - 1)) >> 32); /* no division */
}

/* Forgets the run's entries (the latest one matches nothing). */
static inline void poll_rules_forget_nodes(struct hprof_poll_run *r)
{
    r->nnodes = r->last = 0;
    r->ra = 0;
}

/* Opens a run at frame after a poll that completed nothing, timed alone:
 * end_ns its end, dur_ns its time; seed: the strides' first random state
 * when the thread had none. */
static inline void poll_rules_open(struct hprof_poll_run *r, const void *frame, uint64_t end_ns,
                                   uint64_t dur_ns, uint32_t seed)
{
    r->frame = frame;
    r->read_ns = r->open_ns = r->timed_at_ns = end_ns;
    r->first_ns = dur_ns;
    r->pending = r->tallied = r->streak_from = r->timed = r->run_polls = 0;
    r->cpu_ns = r->cpu_at_ns = r->cpu_credited_ns = r->cpu_lump_ns = r->on_credited_ns = r->on_ns = 0;
    if (!r->rng)
        r->rng = seed;
    r->n = POLL_N_FIRST;
    r->stride = poll_rules_draw_stride(r);
    r->due = r->stride - 1;
    poll_rules_forget_nodes(r);
}

/* The run ends (credited). Opening a run and ending it cost a few timed
 * polls: in a loop whose polls take turns with other calls (MPI_Test,
 * MPI_Iprobe, then MPI_Send from one frame) every run ends after one or
 * two, so after POLL_SHORT_RUNS such runs in a row the next
 * POLL_OPENS_SKIPPED polls are timed alone, and then one run is tried. */
static inline void poll_rules_ended(struct hprof_poll_run *r)
{
    if (r->run_polls >= POLL_RUN_WORTH) {
        r->short_runs = 0;
        return;
    }
    if (r->short_runs < POLL_SHORT_RUNS)
        r->short_runs++;
    if (r->short_runs == POLL_SHORT_RUNS)
        r->opens_skipped = POLL_OPENS_SKIPPED;
}

/* May a poll that completed nothing, timed alone, open a run? A poll
 * that may not counts towards the next that may. */
static inline int poll_rules_may_open(struct hprof_poll_run *r)
{
    if (!r->opens_skipped)
        return 1;
    r->opens_skipped--;
    return 0;
}

/* After a timed poll that ended at end_ns: the loop's pace since the last
 * timed poll sets the mean stride, so that a poll is timed about every
 * target_ns of the loop (HPROF_POLL_STRIDE_US), and the next is drawn. */
static inline void poll_rules_pace(struct hprof_poll_run *r, uint64_t end_ns, uint64_t target_ns)
{
    uint64_t per = (end_ns - r->timed_at_ns) / (r->stride ? r->stride : 1);
    uint64_t n = per ? target_ns / per : POLL_N_MAX;
    r->n = n < 1 ? 1 : n > POLL_N_MAX ? POLL_N_MAX : (uint32_t)n;
    r->stride = poll_rules_draw_stride(r);
    r->due = r->stride - 1;
    r->timed_at_ns = end_ns;
}

/* ---- the estimate ---------------------------------------------------------- */

/* The time since the run's last credit. */
static inline uint64_t poll_rules_since(const struct hprof_poll_run *r, uint64_t now_ns)
{
    return now_ns > r->read_ns ? now_ns - r->read_ns : 0;
}

/* The run's mean timed poll, or the thread's last run's, or the opening
 * poll's time (hprof's walk in it) when no poll was timed yet. */
static inline uint64_t poll_rules_run_mean(const struct hprof_poll_run *r)
{
    uint64_t ns = 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->nnodes && r->timed; i++) {
        ns += r->nodes[i].timed_ns;
        n += r->nodes[i].timed;
    }
    if (n)
        return ns / n;
    return r->prior_mean_ns ? r->prior_mean_ns : r->first_ns;
}

/* Entry i's mean timed poll (-1: the run's). */
static inline uint64_t poll_rules_node_mean(const struct hprof_poll_run *r, int i)
{
    if (i >= 0 && r->nodes[i].timed)
        return r->nodes[i].timed_ns / r->nodes[i].timed;
    return poll_rules_run_mean(r);
}

/* A poll's time when it was not timed: its node's mean (entry i; -1: the
 * run's), at most the time since the run's last credit. */
static inline uint64_t poll_rules_estimate(const struct hprof_poll_run *r, int i, uint64_t now_ns)
{
    uint64_t mean = poll_rules_node_mean(r, i), elapsed = poll_rules_since(r, now_ns);
    return mean < elapsed ? mean : elapsed;
}

/* The latest entry's polls since it became the latest are its own. */
static inline void poll_rules_end_streak(struct hprof_poll_run *r)
{
    r->nodes[r->last].polls += r->pending - r->streak_from;
    r->streak_from = r->pending;
}

/* The credit of the polls since the last one, up to now_ns: per entry, in
 * polls[i] its visits and in ns[i] its MPI time, its timed polls' time
 * plus its other polls at its mean, all of it at most the time elapsed
 * less reserve_ns (a call of the run that ends it, whose time is its
 * own). The entries' counts restart; poll_rules_credited ends the credit. */
static inline void poll_rules_credit(struct hprof_poll_run *r, uint64_t now_ns, uint64_t reserve_ns,
                                     uint64_t ns[HPROF_POLL_RUN_NODES], uint32_t polls[HPROF_POLL_RUN_NODES])
{
    poll_rules_end_streak(r);
    uint64_t untimed[HPROF_POLL_RUN_NODES], sum = 0;
    for (uint32_t i = 0; i < r->nnodes; i++) {
        const struct hprof_poll_node *e = &r->nodes[i];
        uint32_t n = e->polls > e->seg_timed ? e->polls - e->seg_timed : 0;
        untimed[i] = (uint64_t)n * poll_rules_node_mean(r, (int)i);
        sum += e->seg_ns + untimed[i];
    }
    uint64_t elapsed = poll_rules_since(r, now_ns);
    uint64_t room = elapsed > reserve_ns ? elapsed - reserve_ns : 0;
    for (uint32_t i = 0; i < r->nnodes; i++) {
        struct hprof_poll_node *e = &r->nodes[i];
        polls[i] = e->polls;
        if (!e->polls)
            continue;
        ns[i] = e->seg_ns + untimed[i];
        if (sum > room) /* an estimate beyond the span (a mean above this span's polls) is cut to it */
            ns[i] = (uint64_t)((unsigned __int128)ns[i] * room / sum);
        e->polls = e->seg_timed = 0;
        e->seg_ns = 0;
    }
}

/* The credit at now_ns is done: the polls counted since the last one are
 * settled, the next timed poll's distance kept. */
static inline void poll_rules_credited(struct hprof_poll_run *r, uint64_t now_ns)
{
    r->due = r->due > r->pending ? r->due - r->pending : 0;
    r->run_polls += r->pending;
    r->pending = r->tallied = r->streak_from = 0;
    r->read_ns = now_ns;
}

/* ---- lumps ----------------------------------------------------------------- */

/* The clock's own part in a timed poll's span, after one more sample of
 * it (the end of a timed poll to a read right after it): the samples'
 * running mean, each of weight 1/2^POLL_PART_SHIFT, a sample clipped at
 * twice the mean and 20 ns (an interrupt in it moves the mean little).
 * A mean, not a median: the clock may move in steps (this VM's TSC by 21
 * ticks, 10 ns), so that a pair reads 20 or 30 ns where it costs 26 on
 * average, and a median is off by up to half a step, every poll of the
 * run; polls take 20 ns. Running: a clock read costs what the host makes
 * it cost at the time. In 1/256 ns; the part in ns returned. */
#define POLL_PART_SHIFT 5
static inline uint64_t poll_rules_clock_part(struct hprof_poll_run *r, uint64_t sample_ns)
{
    uint64_t part = r->clock_part_q8, cap = 2 * part + (20u << 8);
    uint64_t s = sample_ns < cap >> 8 ? sample_ns << 8 : cap;
    part = s >= part ? part + ((s - part) >> POLL_PART_SHIFT) : part - ((part - s) >> POLL_PART_SHIFT);
    r->clock_part_q8 = (uint32_t)part;
    return (part + 128) >> 8;
}

/* A timed poll's time, from start_ns to end_ns, less the clock's own part. */
static inline uint64_t poll_rules_timed_ns(uint64_t start_ns, uint64_t end_ns, uint64_t clock_part_ns)
{
    return end_ns > start_ns + clock_part_ns ? end_ns - start_ns - clock_part_ns : 0;
}

/* A joined poll on entry i, timed at d ns: counted; a poll POLL_LUMP_TIMES
 * its mean and POLL_LUMP_ABOVE_NS above it (once a mean is known) was
 * most likely descheduled: it counts its mean, and the rest is held as a
 * lump until the CPU clock tells (poll_rules_off_cpu). */
static inline void poll_rules_timed(struct hprof_poll_run *r, int i, uint64_t d)
{
    struct hprof_poll_node *e = &r->nodes[i];
    uint64_t mean = poll_rules_node_mean(r, i);
    r->pending++;
    e->seg_timed++;
    if ((e->timed || r->prior_mean_ns) && d > POLL_LUMP_TIMES * mean && d > mean + POLL_LUMP_ABOVE_NS) {
        e->seg_ns += mean;
        r->cpu_lump_ns += d - mean;
    } else {
        e->seg_ns += d;
        e->timed_ns += d;
        e->timed++;
        r->timed++;
    }
}

/* A timed poll's bookkeeping took spent_ns: its own time, up to
 * POLL_BOOKKEEPING_MAX_NS (beyond, a read of the CPU clock, a system call,
 * was descheduled: held as a lump's). Goes to the latest entry. */
static inline void poll_rules_bookkeeping(struct hprof_poll_run *r, uint64_t spent_ns)
{
    if (spent_ns > POLL_BOOKKEEPING_MAX_NS) {
        r->cpu_lump_ns += spent_ns - POLL_BOOKKEEPING_MAX_NS;
        spent_ns = POLL_BOOKKEEPING_MAX_NS;
    }
    r->nodes[r->last].seg_ns += spent_ns;
}

/* ---- the time off the CPU ------------------------------------------------- */

/* When the CPU clock is read at now_ns (after a credit): 0 not, 1 the
 * run's first read (held lumps go as timed first), 2 a later read. From
 * POLL_CPU_FIRST_NS into the run; then at a timed poll once
 * POLL_CPU_CREDIT_NS of MPI time were credited since the last read (or
 * POLL_CPU_MAX_NS went by), at a sample (at_once) once POLL_CPU_SAMPLE_NS
 * was. A short run reads it never. */
static inline int poll_rules_cpu_due(const struct hprof_poll_run *r, uint64_t now_ns, int at_once)
{
    if (r->cpu_credited_ns < (at_once ? POLL_CPU_SAMPLE_NS : 1))
        return 0;
    if (!r->cpu_at_ns)
        return now_ns - r->open_ns >= POLL_CPU_FIRST_NS ? 1 : 0;
    return at_once || r->cpu_credited_ns >= POLL_CPU_CREDIT_NS || now_ns - r->cpu_at_ns >= POLL_CPU_MAX_NS
               ? 2
               : 0;
}

/* The CPU clock read cpu_ns at now_ns, with an earlier read in the run and
 * MPI time credited since: the time the thread was off the CPU since that
 * read landed in the loop's polls or between them as its time on the CPU
 * did (over the run's reads so far: one read's span may hold little of
 * it), so the polls get that share of it (*off_share_ns); what of the
 * held lumps the thread did not spend off the CPU was the polls' own work.
 * Both at most the span's time not yet credited and the sampler's
 * interval (interval_ns: window_room_ns). Returns the MPI time to add, by
 * credit (poll_rules_by_credit). */
static inline uint64_t poll_rules_off_cpu(struct hprof_poll_run *r, uint64_t now_ns, uint64_t cpu_ns,
                                          uint64_t interval_ns, uint64_t *off_share_ns)
{
    uint64_t credited = r->cpu_credited_ns;
    uint64_t wall = now_ns > r->cpu_at_ns ? now_ns - r->cpu_at_ns : 0, ran = cpu_ns - r->cpu_ns;
    uint64_t off = wall > ran ? wall - ran : 0, on = wall - off;
    uint64_t worked = r->cpu_lump_ns > off ? r->cpu_lump_ns - off : 0;
    r->on_credited_ns += credited;
    r->on_ns += on;
    uint64_t share = off == 0 || r->on_ns == 0 ? 0
                     : r->on_credited_ns >= r->on_ns
                         ? off
                         : (uint64_t)((unsigned __int128)off * r->on_credited_ns / r->on_ns);
    uint64_t room = wall > credited ? wall - credited : 0;
    if (room > interval_ns) /* never beyond the sampler's interval (a read's span may begin before it) */
        room = interval_ns;
    if (worked > room)
        worked = room;
    if (share > room - worked)
        share = room - worked;
    *off_share_ns = share;
    return share + worked;
}

/* The CPU clock's reading cpu_ns at now_ns starts the next span. */
static inline void poll_rules_cpu_read(struct hprof_poll_run *r, uint64_t now_ns, uint64_t cpu_ns)
{
    for (uint32_t i = 0; i < r->nnodes; i++)
        r->nodes[i].cpu_credited_ns = 0;
    r->cpu_credited_ns = r->cpu_lump_ns = 0;
    r->cpu_ns = cpu_ns;
    r->cpu_at_ns = now_ns;
}

/* ns split over the run's entries by the MPI time credited to each since
 * the CPU clock's last read (credited in all, not 0): part[i]. */
static inline void poll_rules_by_credit(const struct hprof_poll_run *r, uint64_t ns, uint64_t credited,
                                        uint64_t part[HPROF_POLL_RUN_NODES])
{
    uint64_t left = ns;
    for (uint32_t i = 0; i < r->nnodes; i++) {
        part[i] = left ? (uint64_t)((unsigned __int128)ns * r->nodes[i].cpu_credited_ns / credited) : 0;
        if (part[i] > left || i == r->nnodes - 1)
            part[i] = left;
        left -= part[i];
    }
}

#endif
