#include "lib/lifecycle/run_attrs.h"
#include "report/merge/agg_concat.h"
#include "report/merge/quiet.h"
#include "report/profile/program_id.h"

#include <ctype.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "core/config.h"
#include "lib/exact/exact_report.h"
#include "core/log.h"
#include "lib/sampling/sampler.h"
#include "lib/threads/thread.h"

#define NHIST (SAMPLER_HIST_BUCKETS + 1)

enum {
    ST_COUNTED,
    ST_IN_MPI,
    ST_BUSY,
    ST_FAILED,
    ST_FULL,
    ST_SLOWED,
    ST_LONGEST_NS,
    ST_EXACT_FAILED,
    ST_EXACT_UNMET,
    ST_CPU_SAMPLES, /* on the CPU clock: samples that arrived, */
    ST_CPU_SPAN_NS, /* over this much CPU time (threads at the rate asked) */
    NSTATS
};

#define RUN_ID_BYTES 16
static char run_id[2 * RUN_ID_BYTES + 1]; /* hex; "" before the ranks agreed */

static void add(run_attrs *a, const char *key, const char *value)
{
    if (a->count == a->cap) {
        int cap = a->cap ? a->cap * 2 : 16;
        const char **k = realloc(a->keys, (size_t)cap * sizeof *k);
        if (k)
            a->keys = k;
        const char **v = realloc(a->values, (size_t)cap * sizeof *v);
        if (v)
            a->values = v;
        if (!k || !v)
            return;
        a->cap = cap;
    }
    char *kk = strdup(key), *vv = strdup(value);
    if (!kk || !vv) {
        free(kk);
        free(vv);
        return;
    }
    a->keys[a->count] = kk;
    a->values[a->count++] = vv;
}

static void add_exact(void *a, const char *key, const char *value)
{
    add(a, key, value);
}

static void add_u64(run_attrs *a, const char *key, unsigned long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", v);
    add(a, key, buf);
}

static void histogram_text(char *buf, size_t len, const unsigned long long *h)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < NHIST && off < len; i++)
        off += (size_t)snprintf(buf + off, len - off, i ? " %llu" : "%llu", h[i]);
}

/* This rank's sample statistics and histogram, summed over its threads. */
static void local_stats(unsigned long long *stats, unsigned long long *hist)
{
    memset(stats, 0, NSTATS * sizeof *stats);
    memset(hist, 0, NHIST * sizeof *hist);
    for (hprof_thread *t = hprof_thread_list(); t; t = t->next) {
        const hprof_sampling *s = &t->sampling;
        stats[ST_COUNTED] += s->counted;
        stats[ST_IN_MPI] += s->in_mpi;
        stats[ST_BUSY] += s->busy;
        stats[ST_FAILED] += s->failed;
        stats[ST_FULL] += s->full;
        stats[ST_EXACT_FAILED] += t->exact_failed;
        if (s->pace.longest_ns > s->pace.nominal_ns) { /* sample_pace.h */
            stats[ST_SLOWED]++;
            if (s->pace.longest_ns > stats[ST_LONGEST_NS])
                stats[ST_LONGEST_NS] = s->pace.longest_ns;
        } else if (hprof_config.sampling_clock == HPROF_CLOCK_CPU && s->window.clock_span_ns) {
            stats[ST_CPU_SAMPLES] += s->counted + s->in_mpi + s->busy;
            stats[ST_CPU_SPAN_NS] += s->window.clock_span_ns;
        }
        for (int i = 0; i < NHIST; i++)
            hist[i] += s->hist[i];
    }
    stats[ST_EXACT_UNMET] = hprof_thread_unmet_visits();
}

/* Visits of functions measured exactly that signal handlers made on
 * threads hprof had not met (thread.h): in the profile, and said once. */
static void add_unmet(run_attrs *a, unsigned long long visits)
{
    if (!visits)
        return;
    add_u64(a, "hprof::exact_visits_unmet", visits);
    hprof_say("%llu visits of functions measured exactly were not measured: they ran in signal handlers on "
              "threads that had not made an MPI call yet (hprof::exact_visits_unmet)",
              visits);
}

/* Threads whose sampling rate went down at times (sample_pace.h): in the
 * profile, and said once for the run. */
static void add_slowed(run_attrs *a, unsigned long long threads, unsigned long long longest_ns)
{
    if (!threads || !longest_ns)
        return;
    char buf[64];
    double hz = 1e9 / (double)longest_ns;
    snprintf(buf, sizeof buf, "%.6g", hz);
    add_u64(a, "hprof::sampling_slowed_threads", threads);
    add(a, "hprof::sampling_lowest_hz", buf);
    hprof_say(
        "sampling slowed down on %llu thread(s), to %s Hz at the lowest: taking samples cost them more than "
        "a quarter of their time at HPROF_SAMPLING_HZ=%d",
        threads, buf, hprof_config.sampling_hz);
}

/* On the CPU clock, fewer samples than the rate asked for, over the CPU
 * time of the threads sampled at that rate: the kernel fires CPU-time
 * timers only at its scheduler tick (250 Hz here), so a rate above it
 * gives no more samples. In the profile, and said once for the run. */
static void add_cpu_rate(run_attrs *a, unsigned long long samples, unsigned long long span_ns)
{
    double cpu_s = (double)span_ns * 1e-9, asked = (double)hprof_config.sampling_hz;
    if (hprof_config.sampling_clock != HPROF_CLOCK_CPU || cpu_s * asked < 50 ||
        (double)samples >= 0.6 * cpu_s * asked)
        return;
    char buf[64];
    snprintf(buf, sizeof buf, "%.4g", (double)samples / cpu_s);
    add(a, "hprof::sampling_cpu_hz", buf);
    hprof_say(
        "HPROF_SAMPLING_CLOCK=cpu: samples came %s times a second of CPU time, not the %d asked for: the "
        "kernel fires CPU-time timers only at its scheduler tick; each sample weighs its measured "
        "interval, so the totals hold, at a coarser resolution (the wall clock samples at the rate asked)",
        buf, hprof_config.sampling_hz);
}

static void add_sampling(run_attrs *a, MPI_Comm comm, int rank, int size)
{
    unsigned long long stats[NSTATS], total[NSTATS], hist[NHIST], hist_sum[NHIST];
    local_stats(stats, hist);
    /* quiet collectives: MPICH's blocking ones poll, 3 s here at 64 ranks on 2 cores */
    quiet_reduce(stats, total, NSTATS, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, comm);
    quiet_reduce(&stats[ST_LONGEST_NS], &total[ST_LONGEST_NS], 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, 0, comm);
    quiet_reduce(hist, hist_sum, NHIST, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, comm);
    int nranks = size < RUN_ATTRS_MAX_RANK_HISTOGRAMS ? size : RUN_ATTRS_MAX_RANK_HISTOGRAMS;
    /* the first nranks ranks' histograms, one after the other, along the
     * aggregators' tree: straight to rank 0 they cost it Open MPI's state
     * for every peer */
    agg_tree t;
    agg_tree_build(comm, agg_tree_cap(1), &t);
    unsigned long long *all = agg_concat_records(&t, hist, sizeof hist, nranks);
    if (rank != 0)
        return;
    add_u64(a, "hprof::samples_counted", total[ST_COUNTED]);
    add_u64(a, "hprof::samples_in_mpi", total[ST_IN_MPI]);
    add_u64(a, "hprof::samples_dropped", total[ST_BUSY] + total[ST_FULL]);
    add_u64(a, "hprof::samples_unwind_failed", total[ST_FAILED]);
    add_u64(a, "hprof::exact_unwind_failed", total[ST_EXACT_FAILED]);
    add_unmet(a, total[ST_EXACT_UNMET]);
    add_slowed(a, total[ST_SLOWED], total[ST_LONGEST_NS]);
    add_cpu_rate(a, total[ST_CPU_SAMPLES], total[ST_CPU_SPAN_NS]);
    add(a, "hprof::interval_histogram::buckets",
        "effective interval / nominal interval in steps of 1/8: [0,1/8), [1/8,2/8), ..., [39/8,5), >=5");
    char buf[NHIST * 24], key[64];
    histogram_text(buf, sizeof buf, hist_sum);
    add(a, "hprof::interval_histogram", buf);
    for (int r = 0; all && r < nranks; r++) {
        histogram_text(buf, sizeof buf, all + (size_t)r * NHIST);
        snprintf(key, sizeof key, "hprof::interval_histogram::rank::%d", r);
        add(a, key, buf);
    }
    free(all);
}

/* The MPI library's own name and version, for readers that take the run's
 * parameters (hprof-view --hatchet's metadata): its first line, blanks
 * collapsed ("Open MPI v4.1.4, package: ...", "MPICH Version: 4.0.2"). */
static void add_mpi_library(run_attrs *a)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING + 1], out[256];
    int len = 0;
    if (PMPI_Get_library_version(lib, &len) != MPI_SUCCESS || len <= 0)
        return;
    lib[len < MPI_MAX_LIBRARY_VERSION_STRING ? len : MPI_MAX_LIBRARY_VERSION_STRING] = '\0';
    size_t n = 0;
    for (const char *s = lib; *s && *s != '\n' && n + 1 < sizeof out; s++)
        if (!isspace((unsigned char)*s))
            out[n++] = *s;
        else if (n > 0 && out[n - 1] != ' ')
            out[n++] = ' ';
    while (n > 0 && (out[n - 1] == ' ' || out[n - 1] == ','))
        n--;
    out[n] = '\0';
    if (n > 0)
        add(a, "hprof::mpi", out);
}

/* Random bytes where the kernel gives them, else the time, host and pid:
 * two runs that share a token would be merged as one. */
static void make_run_id(char *hex)
{
    unsigned char b[RUN_ID_BYTES] = { 0 };
    if (getrandom(b, sizeof b, GRND_NONBLOCK) != (ssize_t)sizeof b) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t mix[2] = { (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec,
                            (uint64_t)getpid() ^ ((uint64_t)gethostid() << 32) };
        memcpy(b, mix, sizeof b);
    }
    for (int i = 0; i < RUN_ID_BYTES; i++)
        snprintf(hex + 2 * i, 3, "%02x", b[i]);
}

void run_attrs_agree_run(MPI_Comm comm)
{
    char id[sizeof run_id] = "";
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    if (rank == 0)
        make_run_id(id);
    if (PMPI_Bcast(id, (int)sizeof id, MPI_CHAR, 0, comm) == MPI_SUCCESS)
        memcpy(run_id, id, sizeof run_id);
}

static void add_common(run_attrs *a, int size)
{
    char buf[4096];
    add(a, "hprof::version", HPROF_VERSION);
    program_command_line(buf, sizeof buf);
    add(a, "hprof::command", buf);
    time_t now = time(NULL);
    struct tm tm;
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S%z", localtime_r(&now, &tm));
    add(a, "hprof::date", buf);
    add_u64(a, "hprof::ranks", (unsigned long long)size);
    if (run_id[0])
        add(a, "hprof::run", run_id);
    add_u64(a, "hprof::sampling_hz", (unsigned long long)hprof_config.sampling_hz);
    add(a, "hprof::sampling_clock", hprof_config.sampling_clock == HPROF_CLOCK_CPU ? "cpu" : "wall");
    add(a, "hprof::callsites", hprof_config.callsites == HPROF_CALLSITES_SPLIT ? "split" : "merge");
    add_mpi_library(a);
}

void run_attrs_collect(run_attrs *a, MPI_Comm comm)
{
    memset(a, 0, sizeof *a);
    int rank, size;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    add_common(a, size);
    add_sampling(a, comm, rank, size);
    hprof_exact_report(comm, add_exact, a);
}

void run_attrs_local(run_attrs *a, int nranks)
{
    memset(a, 0, sizeof *a);
    add_common(a, nranks);
    unsigned long long stats[NSTATS], hist[NHIST];
    char buf[NHIST * 24];
    local_stats(stats, hist);
    add_u64(a, "hprof::samples_counted", stats[ST_COUNTED]);
    add_u64(a, "hprof::samples_in_mpi", stats[ST_IN_MPI]);
    add_u64(a, "hprof::samples_dropped", stats[ST_BUSY] + stats[ST_FULL]);
    add_u64(a, "hprof::exact_unwind_failed", stats[ST_EXACT_FAILED]);
    if (stats[ST_EXACT_UNMET])
        add_u64(a, "hprof::exact_visits_unmet", stats[ST_EXACT_UNMET]);
    histogram_text(buf, sizeof buf, hist);
    add(a, "hprof::interval_histogram", buf);
    hprof_exact_report(MPI_COMM_NULL, add_exact, a);
}

void run_attrs_free(run_attrs *a)
{
    for (int i = 0; i < a->count; i++) {
        free((char *)a->keys[i]);
        free((char *)a->values[i]);
    }
    free(a->keys);
    free(a->values);
    memset(a, 0, sizeof *a);
}
