/*
 * poll_run.c - polling loops: every poll counted, one in N timed (poll_run.h).
 * The rules are poll_rules.h's; here the clocks are read and what the rules
 * decide goes to the thread's tree, time line and sampling window.
 */
#include "lib/polls/poll_run.h"

#include <stdlib.h>
#include <time.h>

#include "core/config.h"
#include "core/path_log.h"
#include "core/timeline.h"
#include "lib/sampling/window.h"
#include "unwind/unwind.h"

/* The clock's own part in a timed poll's span (from one reading's
 * taking to the next's, with nothing between them), in 1/256 ns: the
 * mean of back-to-back pairs, each clipped about as poll_rules_clock_part
 * clips a sample, once a process; each thread's tracked part starts
 * there. HPROFTEST_CLOCK_PART=NS starts it at NS instead: a test that the
 * tracking corrects a part measured wrong. */
static uint64_t clock_part_q8;

static void measure_clock_part(void)
{
    enum {
        PAIRS = 63
    };
    uint64_t d[PAIRS];
    int kind = hprof_stamp_kind(); /* read as a timed poll's span is */
    for (int i = 0; i < PAIRS; i++) {
        uint64_t a = hprof_stamp_read(kind);
        uint64_t b = hprof_stamp_read(kind);
        d[i] = hprof_stamp_ns(kind, b) - hprof_stamp_ns(kind, a);
    }
    uint64_t least = d[0], sum = 0;
    for (int i = 1; i < PAIRS; i++)
        least = d[i] < least ? d[i] : least;
    for (int i = 0; i < PAIRS; i++) /* a pair an interrupt stretched counts little */
        sum += d[i] < 2 * least + 20 ? d[i] : 2 * least + 20;
    uint64_t q8 = (sum << 8) / PAIRS;
    const char *forced = getenv("HPROFTEST_CLOCK_PART");
    if (forced && atoi(forced) > 0)
        q8 = (uint64_t)atoi(forced) << 8;
    clock_part_q8 = q8 ? q8 : 1;
}

uint64_t poll_run_clock_part_ns(void)
{
    return (clock_part_q8 + 128) >> 8;
}

uint64_t poll_run_estimate(const hprof_thread *t, int i, uint64_t now_ns)
{
    return poll_rules_estimate(&t->poll, i, now_ns);
}

/* Adds ns of MPI time and polls visits to entry i's node at now_ns
 * (HPROF_POLLS=split: polls that completed nothing), its timeline and the
 * sampler's interval. */
static void add_to_node(hprof_thread *t, int i, uint64_t now_ns, uint64_t ns, uint32_t polls)
{
    struct hprof_poll_run *r = &t->poll;
    uint32_t node = r->nodes[i].node;
    uint64_t *c = t->tree.nodes[node].counter;
    c[CCT_VISITS] += polls;
    c[CCT_POLLS_FAILED] += polls;
    c[CCT_MPI_TIME_NS] += ns;
    c[CCT_POLLS_FAILED_NS] += ns;
    if (polls) {
        uint32_t bucket = timeline_add_call(&t->timeline, now_ns, ns, 0, 0);
        if (polls > 1)
            timeline_add_count(&t->timeline, TL_VISITS, now_ns, polls - 1);
        path_log_add_in(&t->paths, t->timeline.shift, bucket, PL_MPI, node, now_ns, ns);
    } else {
        timeline_add_span(&t->timeline, TL_MPI_NS, now_ns, ns);
        path_log_add(&t->paths, t->timeline.shift, PL_MPI, node, now_ns, ns);
    }
    r->nodes[i].cpu_credited_ns += ns;
    r->cpu_credited_ns += ns;
    window_add_mpi_time(&t->sampling.window, ns);
}

/* Credits the polls since the last credit up to now_ns (poll_rules_credit:
 * reserve_ns of the span is the ending call's own). */
static void credit(hprof_thread *t, uint64_t now_ns, uint64_t reserve_ns)
{
    struct hprof_poll_run *r = &t->poll;
    uint64_t ns[HPROF_POLL_RUN_NODES];
    uint32_t polls[HPROF_POLL_RUN_NODES];
    poll_rules_credit(r, now_ns, reserve_ns, ns, polls);
    for (uint32_t i = 0; i < r->nnodes; i++)
        if (polls[i])
            add_to_node(t, (int)i, now_ns, ns[i], polls[i]);
    t->polls_in_runs += r->pending; /* HPROF_VERBOSE=1 */
    t->polls_repeated += r->pending - r->tallied;
    poll_rules_credited(r, now_ns);
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Adds ns to the run's nodes at now_ns, by the MPI time credited to them
 * since the CPU clock's last read (of credited in all). */
static void add_by_credit(hprof_thread *t, uint64_t now_ns, uint64_t ns, uint64_t credited)
{
    struct hprof_poll_run *r = &t->poll;
    uint64_t part[HPROF_POLL_RUN_NODES];
    poll_rules_by_credit(r, ns, credited, part);
    for (uint32_t i = 0; i < r->nnodes; i++)
        if (part[i])
            add_to_node(t, (int)i, now_ns, part[i], 0);
}

/* Reads the thread's CPU clock at now_ns, just after a credit. The time
 * the thread was off the CPU since the previous read landed in the
 * loop's polls or between them as its time on the CPU did: the polls get
 * that share of it, those timed as the others (a timed poll far above its
 * mean was credited its mean, the rest held as lump_ns). What of the held
 * time the thread did not spend off the CPU was the polls' own work: it is
 * theirs as it was timed. */
static void cpu_read(hprof_thread *t, uint64_t now_ns)
{
    struct hprof_poll_run *r = &t->poll;
    uint64_t cpu = thread_cpu_ns();
    t->poll_cpu_reads++;
    uint64_t credited = r->cpu_credited_ns;
    if (r->cpu_at_ns && credited) {
        uint64_t share,
            ns = poll_rules_off_cpu(r, now_ns, cpu, window_room_ns(&t->sampling.window, now_ns), &share);
        t->polls_off_cpu_ns += share; /* HPROF_VERBOSE=1 */
        add_by_credit(t, now_ns, ns, credited);
    }
    poll_rules_cpu_read(r, now_ns, cpu);
}

/* Timed polls far above their mean with no read of the CPU clock in the
 * run to tell their time off it: their time as it was timed. */
static void lumps_as_timed(hprof_thread *t, uint64_t now_ns)
{
    struct hprof_poll_run *r = &t->poll;
    if (r->cpu_lump_ns && r->cpu_credited_ns)
        add_by_credit(t, now_ns, r->cpu_lump_ns, r->cpu_credited_ns);
    if (r->cpu_lump_ns)
        r->cpu_lump_ns = 0;
}

/* The CPU clock where poll_rules_cpu_due says. */
static void maybe_cpu_read(hprof_thread *t, uint64_t now_ns, int at_once)
{
    int due = poll_rules_cpu_due(&t->poll, now_ns, at_once);
    if (due == 1)
        lumps_as_timed(t, now_ns);
    if (due)
        cpu_read(t, now_ns);
}

void poll_run_open(hprof_thread *t, const void *frame, uint64_t end_ns, uint64_t dur_ns)
{
    if (!clock_part_q8) /* racing threads measure alike */
        measure_clock_part();
    if (!t->poll.clock_part_q8)
        t->poll.clock_part_q8 = (uint32_t)clock_part_q8;
    poll_rules_open(&t->poll, frame, end_ns, dur_ns, 0x9e3779b9u ^ (uint32_t)(uintptr_t)t);
    t->poll.stamp_kind = (uint32_t)hprof_stamp_kind();
    poll_run_hint(t);
}

/* Ends the run at now_ns, reserve_ns of the span since its last credit
 * being the ending call's own. */
static void end_run(hprof_thread *t, uint64_t now_ns, uint64_t reserve_ns)
{
    struct hprof_poll_run *r = &t->poll;
    if (r->pending)
        credit(t, now_ns, reserve_ns);
    if (r->cpu_at_ns && r->cpu_credited_ns)
        cpu_read(t, now_ns);
    else
        lumps_as_timed(t, now_ns);
    if (r->timed)
        r->prior_mean_ns = poll_rules_run_mean(r);
    poll_rules_ended(r);
    r->frame = NULL;
}

void poll_run_close(hprof_thread *t, uint64_t now_ns)
{
    if (t->poll.frame)
        end_run(t, now_ns, 0);
}

void poll_run_finish(hprof_thread *t, uint64_t end_ns, uint64_t own_ns)
{
    if (t->poll.frame)
        end_run(t, end_ns, own_ns);
}

int poll_run_enter(hprof_thread *t, uint32_t node, uint32_t site, int fn, const void *frame)
{
    struct hprof_poll_run *r = &t->poll;
    int i = poll_run_find(t, fn, site);
    if (i < 0) {
        if (r->nnodes == HPROF_POLL_RUN_NODES) {
            /* a fifth call site: what the run holds is credited, and it
             * goes on with this one alone */
            uint64_t now = hprof_now_ns();
            if (r->pending)
                credit(t, now, 0);
            if (r->cpu_at_ns && r->cpu_credited_ns)
                cpu_read(t, now);
            else
                lumps_as_timed(t, now);
            poll_rules_forget_nodes(r);
        }
        i = (int)r->nnodes++;
        r->nodes[i] = (struct hprof_poll_node){ .node = node, .site = site, .fn = fn };
    }
    const uint64_t *f = frame;
    poll_rules_end_streak(r);
    r->last = (uint32_t)i;
    r->fn = fn;
    r->ra = f[1];
    r->bp = f[0];
    r->bp_mask = unwind_site_needs_bp(frame) ? ~(uint64_t)0 : 0;
    unwind_token_take(&r->caller);
    return i;
}

void poll_run_timed(hprof_thread *t, int i, uint64_t start_ns, uint64_t end_ns)
{
    struct hprof_poll_run *r = &t->poll;
    uint64_t part_ns = poll_rules_clock_part(r, r->clock_pair_ns);
    uint64_t d = poll_rules_timed_ns(start_ns, end_ns, part_ns);
    uint64_t *c = t->tree.nodes[r->nodes[i].node].counter;
    if (d < c[CCT_MIN_NS])
        c[CCT_MIN_NS] = d;
    if (d > c[CCT_MAX_NS])
        c[CCT_MAX_NS] = d;
    poll_rules_timed(r, i, d);
    t->polls_timed++;
    credit(t, end_ns, 0);
    poll_rules_pace(r, end_ns, (uint64_t)hprof_config.poll_stride_us * 1000);
    maybe_cpu_read(t, end_ns, 0);
    poll_run_hint(t);
    /* this bookkeeping is the timed poll's: its time comes with the next
     * credit (a lump's beyond POLL_BOOKKEEPING_MAX_NS). So are its clock
     * reads as the program's clock around the call sees them: the part
     * taken out of its span for the mean (which the other polls, not
     * timed, are credited), and the halves of its first and last reads
     * outside both spans. */
    poll_rules_bookkeeping(r, hprof_now_ns() - end_ns + 2 * part_ns);
}

void poll_run_add_tallied(hprof_thread *t, int i, int fn, uint64_t start_ns, uint64_t end_ns)
{
    uint32_t site = t->poll.nodes[i].site;
    t->polls_repeated += (uint64_t)(site == t->last_site && fn == t->last_fn);
    t->last_site = site;
    t->last_fn = fn;
    t->poll.tallied++;
    if (start_ns)
        poll_run_timed(t, i, start_ns, end_ns);
    else
        poll_run_add(t);
}

int poll_run_by_site(hprof_thread *t, int fn, const void *frame)
{
    uint32_t site = unwind_mpi_cached(frame);
    int i = site == CCT_NONE ? -1 : poll_run_find(t, fn, site);
    if (i >= 0)
        i = poll_run_enter(t, t->poll.nodes[i].node, site, fn, frame);
    return i;
}

void poll_run_sampled(hprof_thread *t)
{
    struct hprof_poll_run *r = &t->poll;
    if (!r->frame)
        return;
    uint64_t now = hprof_now_ns();
    if (r->pending)
        credit(t, now, 0);
    else
        r->read_ns = now; /* no poll since: the next credit's span begins here */
    maybe_cpu_read(t, now, 1);
}
