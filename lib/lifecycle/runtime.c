/*
 * runtime.c - the measurement's life: started as MPI_Init returns (or the
 * first MPI_Session_init), stopped as MPI_Finalize begins (or the last
 * MPI_Session_finalize), which merges and writes the profile over the
 * communicator the start was given; lifecycle.c says which call. Nothing
 * happens in a process that never initialises MPI (mpirun itself, or any
 * other program that has the library preloaded).
 */
#include "lib/lifecycle/runtime.h"

#include <mpi.h>
#include <string.h>

#include "lib/ending/abandon.h"
#include "lib/active.h"
#include "lib/interpose/dl_watch.h"
#include "core/cct.h"
#include "core/config.h"
#include "lib/exact/exact.h"
#include "lib/interpose/interpose.h"
#include "core/fn_table.h"
#include "core/log.h"
#include "lib/measure.h"
#include "lib/lifecycle/measured_world.h"
#include "report/merge/merge.h"
#include "core/nounwind.h"
#include "lib/sampling/papi_events.h"
#include "lib/polls/poll_run.h"
#include "lib/lifecycle/return_readers.h"
#include "report/merge/program_agree.h"
#include "unwind/python/py_runtime.h"
#include "report/merge/quiet.h"
#include "lib/lifecycle/run_attrs.h"
#include "lib/ending/live_snapshot.h"
#include "lib/ending/run_marks.h"
#include "lib/lifecycle/runtime_snapshot.h"
#include "lib/sampling/sampler.h"
#include "lib/lifecycle/spawn.h"
#include "lib/threads/thread.h"
#include "core/timeline.h"
#include "unwind/unwind.h"

static int started;
/* Over all processes that measure: a duplicate of MPI_COMM_WORLD, or a
 * communicator over the parts of an MPMD launch that measure
 * (measured_world.h), or a duplicate of the communicator derived from
 * hprof's session, that returns errors instead of aborting:
 * a rank that died before MPI_Finalize must not make the others' finalize
 * end otherwise than it would without hprof. */
static MPI_Comm run_comm = MPI_COMM_NULL;
/* This process's rank in MPI_COMM_WORLD (or in hprof's session's
 * communicator over mpi://WORLD): its number in the profile, also where
 * run_comm holds only the processes that measure. */
static int process_rank;

static int fn_index(const char *name)
{
    for (int i = 0; i < hprof_fn_count; i++)
        if (strcmp(hprof_fn_table[i].name, name) == 0)
            return i;
    return -1;
}

void hprof_runtime_record_init(int fn, uint64_t start_ns)
{
    if (!hprof_active)
        return;
    /* A thread met here first (its own session, opened while another
     * thread's opened the measurement) has its window from its init call. */
    hprof_thread *t = hprof_self;
    if (!t && (t = hprof_thread_get()) != NULL)
        sampler_thread_start(t, start_ns);
    if (!t || t->depth > 0)
        return;
    hprof_call call = { .start_ns = start_ns,
                        .fn = fn,
                        .measured = 1,
                        .start_cpu_ns = window_clock_ns(),
                        .start_cpu_cost_ns = window_clock_read_cost_ns() };
    t->depth++;
    hprof_record_call(&call);
    t->depth--;
}

void hprof_runtime_start(int fn, uint64_t start_ns, MPI_Comm comm)
{
    if (started)
        return;
    started = 1;
    if (comm == MPI_COMM_WORLD) {
        run_comm = measured_world_comm(); /* said why when it is MPI_COMM_NULL */
        if (run_comm == MPI_COMM_NULL)
            return;
    } else if (PMPI_Comm_dup(comm, &run_comm) != MPI_SUCCESS) {
        run_comm = MPI_COMM_NULL;
        hprof_say("cannot duplicate the communicator at start-up; measurement is off");
        return;
    }
    PMPI_Comm_set_errhandler(run_comm, MPI_ERRORS_RETURN);
    run_attrs_agree_run(run_comm);
    hprof_clock_calibrate();
    int rank = 0;
    PMPI_Comm_rank(run_comm, &rank);
    PMPI_Comm_rank(comm, &process_rank);
    hprof_log_set_rank(rank);
    hprof_config_load();
    hprof_fn_nounwind = nounwind_parse(hprof_config.nounwind);
    hprof_interpose_resolve();            /* before any walk: the program's signal handlers may walk */
    return_readers_check();               /* before any walk: it may turn the thunks off */
    py_runtime_init(hprof_config.python); /* before the init call's own walk */
    hprof_thread *t = hprof_thread_get();
    if (!t) {
        hprof_say("out of memory at start-up; measurement is off");
        return;
    }
    int nranks = 1;
    PMPI_Comm_size(run_comm, &nranks);
    abandon_arm(process_rank, nranks, hprof_call_book_in_flight, hprof_call_book_stopped);
    sampler_set_in_mpi_hook(hprof_call_locate_in_flight);
    snapshot_listen_start(process_rank, nranks);
    hprof_dl_watch_start();
    hprof_abort_fn = fn_index("MPI_Abort");
    hprof_active = 1;
    run_marks_started();
    if (comm == MPI_COMM_WORLD) /* a spawned job has a parent in the World model only */
        hprof_spawn_child_start();
    /* The init call itself is recorded like any MPI call, and the window
     * opens at its entry. */
    timeline_set_origin(start_ns);
    hprof_runtime_record_init(fn, start_ns);
    hprof_papi_process_start();
    hprof_measure_settle();
    sampler_process_start();
    /* Opens the window (sampled or not) and starts the thread's PAPI events. */
    sampler_thread_start(t, start_ns);
    hprof_exact_start(start_ns);
}

/* The node of the function that called MPI_Finalize: where the last
 * interval of a thread that counted no sample goes. */
static uint32_t finalize_caller_node(hprof_thread *t)
{
    uint64_t ips[UNWIND_MAX_FRAMES];
    int n = unwind_mpi_path(ips, UNWIND_MAX_FRAMES);
    if (n <= 0 || cct_reserve(&t->tree, (uint32_t)n) != 0)
        return CCT_NONE;
    return cct_path(&t->tree, ips, n);
}

static void report_window(const hprof_thread *t)
{
    const hprof_sampling *s = &t->sampling;
    hprof_verbose(1,
                  "thread %d: window %.9f s, %llu samples counted, %llu in MPI, %llu dropped; "
                  "in the handler per sample: median %.1f us, mean %.2f us, longest %.1f us",
                  t->index, (double)(s->window.end_ns - s->window.start_ns) * 1e-9,
                  (unsigned long long)s->counted, (unsigned long long)s->in_mpi,
                  (unsigned long long)(s->busy + s->full), (double)sampler_handler_median_ns(s) * 1e-3,
                  s->counted ? (double)s->handler_ns * 1e-3 / (double)s->counted : 0.0,
                  (double)s->handler_max_ns * 1e-3);
    if (s->pace.longest_ns > s->pace.nominal_ns)
        hprof_verbose(
            1,
            "thread %d: sampled at %.6g Hz at the lowest (the handler's time passed a quarter of the "
            "thread's; sample_pace.h)",
            t->index, 1e9 / (double)s->pace.longest_ns);
    if (hprof_config.sampling_clock == HPROF_CLOCK_CPU && t->index == 0)
        hprof_verbose(1, "a read of the thread's CPU clock costs %.3f us (added to each MPI call's CPU time)",
                      (double)window_clock_read_cost_ns() * 1e-3);
    if (t->polls_in_runs)
        hprof_verbose(
            1,
            "thread %d: %llu polls in polling loops, %llu of them timed; %llu reads of the CPU clock, "
            "%.6f s of MPI time for time off the CPU; the clock's part in a timed poll %.1f ns (%llu ns "
            "first measured)",
            t->index, (unsigned long long)t->polls_in_runs, (unsigned long long)t->polls_timed,
            (unsigned long long)t->poll_cpu_reads, (double)t->polls_off_cpu_ns * 1e-9,
            t->poll.clock_part_q8 / 256.0, (unsigned long long)poll_run_clock_part_ns());
    if (t->polls_repeated)
        hprof_verbose(
            1,
            "thread %d: %llu polls that completed nothing added to the previous call's record without a walk",
            t->index, (unsigned long long)t->polls_repeated);
    if (t->tail_ns)
        hprof_verbose(1,
                      "thread %d: hprof's work after a call's end stamp %u ns (its mean, added to each call)",
                      t->index, t->tail_ns);
}

static void stop_sampling(void)
{
    hprof_thread *self = hprof_self;
    uint64_t wall = hprof_now_ns();
    for (hprof_thread *t = hprof_thread_list(); t; t = t->next) {
        if (t == self)
            continue;
        sampler_thread_close(
            t, hprof_config.sampling_clock == HPROF_CLOCK_WALL ? wall : window_clock_of(&t->sampling.window));
    }
    if (self) {
        self->depth++;              /* keep the handler out while we touch the tree */
        poll_run_close(self, wall); /* polls just before MPI_Finalize */
        /* The last interval is computation since the last counted sample,
         * spread over the samples that landed in MPI since: where the
         * thread was last seen computing, as for every other thread, not
         * MPI_Finalize's caller, whose own code ran for little of it. */
        uint32_t node = self->sampling.last_node != CCT_NONE ? CCT_NONE : finalize_caller_node(self);
        sampler_thread_stop(self, window_clock_ns(), node);
        self->depth--;
    }
    for (hprof_thread *t = hprof_thread_list(); t; t = t->next)
        report_window(t);
    py_runtime_finish();
}

/* The rank's threads' histograms summed, at the widest thread's width. */
static void rank_timeline_sum(hprof_timeline *sum)
{
    uint32_t shift = TIMELINE_FIRST_SHIFT;
    for (hprof_thread *t = hprof_thread_list(); t; t = t->next)
        if (t->timeline.bucket && t->timeline.shift > shift)
            shift = t->timeline.shift;
    if (timeline_init(sum, (uint32_t)hprof_config.time_buckets) != 0)
        return;
    sum->shift = shift;
    for (hprof_thread *t = hprof_thread_list(); t; t = t->next)
        timeline_add_into(sum, &t->timeline);
}

/* Did every rank reach MPI_Finalize? A rank that died first (a crash the
 * program handles by exiting, say) fails the barrier at once on the
 * libraries that notice, and its peers write their partial profiles
 * instead of merging; where the library does not notice, the launcher
 * ends the waiting ranks, as it would without hprof. */
static int all_ranks_here(void)
{
    return quiet_barrier(run_comm) == MPI_SUCCESS; /* asleep: ranks still computing keep the cores */
}

void hprof_runtime_stop(void)
{
    if (!hprof_active)
        return;
    /* The barrier waits inside MPI for the last rank, sampled still: the
     * handler must see this thread in MPI (MPI_Finalize's wrapper records
     * no call), not walk the MPI library's progress code (where a walk can
     * fail: seen at 10 kHz in UCX's). */
    hprof_thread *self = hprof_self;
    double t0 = PMPI_Wtime();
    if (self)
        self->depth++;
    int here = all_ranks_here();
    double t_here = PMPI_Wtime();
    if (self)
        self->depth--;
    if (!here) {
        abandon_measurement("another rank ended before MPI_Finalize");
        return;
    }
    hprof_thread_freeze(1); /* threads that end from now on keep their records */
    stop_sampling();
    hprof_exact_stop(hprof_self ? hprof_self->sampling.window.end_ns : hprof_now_ns());
    abandon_merge_begins(); /* an MPI_Abort or a kill from now on: partial profiles */
    hprof_active = 0;
    program_agree(run_comm); /* one root for the programs of an MPMD launch */
    run_attrs attrs;
    run_attrs_collect(&attrs, run_comm);
    double t_attrs = PMPI_Wtime();
    hprof_timeline rank_timeline;
    rank_timeline_sum(&rank_timeline);
    runtime_snapshot snapshot;
    runtime_snapshot_take(&snapshot);
    merge_info info = {
        .comm = run_comm,
        .output = hprof_config.output,
        .attr_keys = attrs.keys,
        .attr_values = attrs.values,
        .nattrs = attrs.count,
        .compress = hprof_config.compress,
        .timeline = &rank_timeline,
        .time_paths = hprof_config.time_buckets > 0 ? hprof_config.time_paths : 0,
        .process_rank = process_rank,
        .phases_dropped = timeline_phases_dropped(),
        .snapshot = &snapshot.s,
    };
    info.nphases = timeline_phases(&info.phases);
    hprof_merge_and_write(&info);
    run_marks_finalized();
    runtime_snapshot_release(&snapshot);
    abandon_merge_ended();
    timeline_free(&rank_timeline);
    run_attrs_free(&attrs);
    PMPI_Comm_free(&run_comm);
    /* where MPI_Finalize's time goes, beside the merge's own phases */
    hprof_verbose(1, "finalize: waiting for every rank %.3f s, run attributes %.3f s, merge and write %.3f s",
                  t_here - t0, t_attrs - t_here, PMPI_Wtime() - t_attrs);
}
