/*
 * merge.c - cross-rank unification of definitions and collection of values.
 * Everything goes through PMPI_ on a private communicator: hprof never
 * measures its own communication and never mixes with the program's messages.
 */
#include "report/merge/merge.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report/cube/writer/cube_writer.h"
#include "report/cube/writer/cw_tmpfile.h"
#include "report/merge/agg_tree.h"
#include "report/merge/collect.h"
#include "report/merge/layout_tree.h"
#include "core/config.h"
#include "report/profile/defs.h"
#include "report/merge/defs_reduce.h"
#include "report/merge/location_reduce.h"
#include "report/profile/local_profile.h"
#include "core/log.h"
#include "report/profile/metrics.h"
#include "report/profile/output_name.h"
#include "report/merge/path_series.h"
#include "report/profile/profile_file.h"
#include "report/merge/quiet.h"
#include "report/merge/timeline_file.h"

#define HOST_LEN 64

/* ---- the system tree ------------------------------------------------------ */

typedef struct layout {
    int nranks;              /* of the merge */
    int nprocs, nlocations;  /* of the file: nranks x HPROF_SIMULATE_RANKS */
    layout_block all;        /* rank 0: every rank's record; hosts and names point into it */
    int *nthreads;           /* per rank */
    int *process_ranks;      /* per rank */
    const char **hosts;      /* per rank */
    const char **name_of;    /* per location */
    const char **node_names; /* unique hosts */
    int nnodes;
    cube_process_def *procs;
} layout;

/* This rank's record: its threads' names as one NUL-separated block. */
static int own_record(const local_profile *lp, int process_rank, layout_block *b)
{
    char host[HOST_LEN] = { 0 };
    gethostname(host, sizeof host - 1);
    size_t len = 0;
    for (int t = 0; t < lp->nthreads; t++)
        len += strlen(lp->thread_names && lp->thread_names[t] ? lp->thread_names[t] : "") + 1;
    char *names = malloc(len + 1), *p = names;
    for (int t = 0; names && t < lp->nthreads; t++) {
        const char *n = lp->thread_names && lp->thread_names[t] ? lp->thread_names[t] : "";
        size_t k = strlen(n) + 1;
        memcpy(p, n, k);
        p += k;
    }
    layout_record r = { lp->nthreads, process_rank, host, names, names ? len : 0 };
    int rc = layout_block_begin(b) == 0 && layout_block_add(b, &r) == 0 ? 0 : -1;
    free(names);
    return rc;
}

/* Points name_of[loc..] at a rank's names; a rank whose names are short
 * keeps the writer's default names. */
static void split_thread_names(const char **name_of, const layout_record *r)
{
    const char *p = r->names, *end = p + r->names_len;
    for (int t = 0; t < r->nthreads && p < end; t++) {
        size_t k = strlen(p); /* each ends by a NUL: layout_view_next checked */
        name_of[t] = *p ? p : NULL;
        p += k + 1;
    }
}

/* Rank 0: every rank's threads, process rank, host and thread names
 * from the gathered block. */
static int read_layout(layout *l)
{
    layout_view v;
    layout_record r;
    long long nloc = 0;
    int n = 0, more;
    if (layout_view_of(&v, l->all.buf, l->all.len) != 0 || v.nranks != (uint32_t)l->nranks)
        return -1;
    for (; (more = layout_view_next(&v, &r)) == 1; n++) {
        l->nthreads[n] = r.nthreads, l->process_ranks[n] = r.process_rank, l->hosts[n] = r.host;
        nloc += r.nthreads;
    }
    if (more < 0 || n != l->nranks || nloc > INT32_MAX / 2 ||
        !(l->name_of = calloc((size_t)nloc + 1, sizeof(char *))))
        return -1;
    layout_view_of(&v, l->all.buf, l->all.len);
    for (long long loc = 0; layout_view_next(&v, &r) == 1; loc += r.nthreads)
        split_thread_names(l->name_of + loc, &r);
    return 0;
}

/* The node of each host, by a hash of the names: O(P) for P ranks
 * whatever the nodes. */
static int node_of(layout *l, int *table, size_t mask, const char *host)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *c = host; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        if (table[i] < 0) {
            table[i] = l->nnodes;
            l->node_names[l->nnodes] = host;
            return l->nnodes++;
        }
        if (strcmp(l->node_names[table[i]], host) == 0)
            return table[i];
    }
}

/* Rank 0: the processes of the file, each rank K times with
 * HPROF_SIMULATE_RANKS=K (rank r*K + j: r's threads, names and host).
 * Ranks of a run of one host share its text in the block: hashed once. */
static int place_processes(layout *l, int size, int k)
{
    size_t slots = 4;
    while (slots < 2 * (size_t)size)
        slots *= 2;
    int *table = malloc(slots * sizeof *table);
    if (!table)
        return -1;
    memset(table, 0xff, slots * sizeof *table); /* -1: empty */
    for (int r = 0, loc = 0, node = 0; r < size; loc += l->nthreads[r], r++) {
        if (r == 0 || l->hosts[r] != l->hosts[r - 1])
            node = node_of(l, table, slots - 1, l->hosts[r]);
        for (int j = 0; j < k; j++)
            l->procs[(size_t)r * k + j] = (cube_process_def){ k > 1 ? r * k + j : l->process_ranks[r], node,
                                                              l->nthreads[r], l->name_of + loc, NULL };
        l->nlocations += l->nthreads[r] * k;
    }
    free(table);
    return 0;
}

/* The layout through the aggregators' tree (layout_tree.h), in the
 * values' groups. The process numbers: MPI_COMM_WORLD's ranks, also
 * where comm holds only the parts of an MPMD launch that measure. */
static int gather_layout(MPI_Comm comm, int rank, int size, int process_rank, const local_profile *lp, int k,
                         layout *l)
{
    memset(l, 0, sizeof *l);
    l->nranks = size;
    l->nprocs = size * k;
    agg_tree t;
    agg_tree_build(comm, agg_tree_cap(k), &t);
    own_record(lp, process_rank, &l->all);
    int gathered = layout_tree_gather(&t, &l->all) == 0;
    if (rank != 0)
        return 0;
    l->nthreads = calloc((size_t)size, sizeof(int));
    l->process_ranks = calloc((size_t)size, sizeof(int));
    l->hosts = calloc((size_t)size, sizeof(char *));
    l->node_names = calloc((size_t)size, sizeof(char *));
    l->procs = calloc((size_t)size * k, sizeof(cube_process_def));
    return gathered && l->nthreads && l->process_ranks && l->hosts && l->node_names && l->procs &&
                   read_layout(l) == 0
               ? place_processes(l, size, k)
               : -1;
}

static void free_layout(layout *l)
{
    layout_block_free(&l->all);
    free(l->name_of);
    free(l->nthreads);
    free(l->process_ranks);
    free(l->hosts);
    free(l->node_names);
    free(l->procs);
}

/* HPROF_LOCATIONS=reduced: the file's processes are rf's, on one node. */
static const char *const reduced_node[] = { LOCATIONS_NODE };

static void reduced_layout(layout *l, int size, const reduced_file *rf)
{
    memset(l, 0, sizeof *l);
    l->nranks = size;
    l->nprocs = LOC_COUNT;
    l->nlocations = LOC_COUNT;
    l->node_names = calloc(1, sizeof(char *));
    if (l->node_names)
        l->node_names[0] = reduced_node[0];
    l->nnodes = 1;
    l->procs = calloc(LOC_COUNT, sizeof(cube_process_def));
    if (l->procs)
        memcpy(l->procs, rf->procs, sizeof rf->procs);
}

/* ---- simulated ranks ----------------------------------------------------------- */

#define SIMULATED_ATTR "hprof::simulated_ranks"

/* What the ranks agree on first, in one reduction (each collective is a
 * round every rank waits for): the PAPI events some rank counted, each
 * event's bit by its max, and HPROF_SIMULATE_RANKS, the largest (as the
 * time line does): a rank given another K would cut other groups and
 * wait for parts no rank sends. Where the reduction fails: no events,
 * this rank's K. */
static void agree_first(MPI_Comm comm, unsigned long long *events, int *simulate)
{
    unsigned long long mine[65], all[65] = { 0 };
    for (int b = 0; b < 64; b++)
        mine[b] = *events >> b & 1;
    mine[64] = all[64] =
        hprof_config.simulate_ranks > 1 ? (unsigned long long)hprof_config.simulate_ranks : 1;
    quiet_allreduce(mine, all, 65, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
    *events = 0;
    for (int b = 0; b < 64; b++)
        *events |= (all[b] & 1) << b;
    *simulate = all[64] <= INT32_MAX ? (int)all[64] : INT32_MAX;
}

/* HPROF_SIMULATE_RANKS as agreed, where P x K processes fit the file's
 * numbers. */
static int simulated_ranks(int k, int rank, int size)
{
    if ((long long)size * k > INT32_MAX / 8) {
        if (rank == 0)
            hprof_say("HPROF_SIMULATE_RANKS=%d: %d x %d processes are too many; not simulated", k, size, k);
        k = 1;
    }
    return k;
}

/* Rank 0: the definitions, with hprof::simulated_ranks = K where K > 1,
 * hprof::locations = reduced where reduced. */
static int define_file(cube_writer *w, const defs *g, const layout *l, const merge_info *info, int k,
                       int reduced)
{
    int n = info->nattrs;
    const char **keys = malloc(sizeof *keys * ((size_t)n + 2)),
               **values = malloc(sizeof *values * ((size_t)n + 2));
    char kbuf[16];
    int rc = -1;
    if (keys && values) {
        for (int i = 0; i < n; i++)
            keys[i] = info->attr_keys[i], values[i] = info->attr_values[i];
        if (k > 1) {
            snprintf(kbuf, sizeof kbuf, "%d", k);
            keys[n] = SIMULATED_ATTR, values[n++] = kbuf;
        }
        if (reduced)
            keys[n] = LOCATIONS_ATTR, values[n++] = "reduced";
        rc = profile_file_define(w, g, l->node_names, l->nnodes, l->procs, l->nprocs, keys, values, n);
    }
    free(keys);
    free(values);
    return rc;
}

/* ---- the whole merge ----------------------------------------------------------- */

/* The process's CPU time: on a loaded machine the phases' wall times say
 * little about what they cost. */
static double cpu_seconds(void)
{
    struct timespec ts;
    return clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0 ? (double)ts.tv_sec + ts.tv_nsec * 1e-9 : 0;
}

static local_profile *empty_profile(void)
{
    local_profile *p = calloc(1, sizeof *p);
    if (p) {
        p->defs = defs_new(hprof_config.callsites == HPROF_CALLSITES_MERGE);
        p->nthreads = 1;
        p->values = calloc((size_t)metrics_nlocal(), sizeof(double));
    }
    return p;
}

/* Rank 0 opens the output: 1 where it did, and on the other ranks, which
 * learn it with the definitions (hprof_merge_and_write's one broadcast).
 * The writer keeps reporting into err until commit or abort. */
static char writer_err[512];

static int open_output(int rank, int size, const merge_info *info, char *path, size_t pathlen,
                       cube_writer **w)
{
    char *err = writer_err;
    size_t errlen = sizeof writer_err;
    err[0] = '\0';
    *w = NULL;
    if (rank == 0) {
        *w = output_create(info->output, size, path, pathlen, err, errlen);
        if (!*w)
            hprof_say("profile not written: %s", err);
        else
            cube_writer_set_compress(*w, info->compress);
    }
    return rank != 0 || *w != NULL;
}

/* Rank 0 finishes the file and says so in one line. */
static int finish_output(cube_writer *w, int ok, const char *path, int ncnodes, int size, double t0)
{
    char err[512] = "";
    long long bytes = cube_writer_bytes(w);
    if (!ok)
        snprintf(err, sizeof err, "%s", writer_err); /* the write that failed said why */
    if (ok && cube_writer_commit(w, err, sizeof err) == 0) {
        hprof_say("wrote %s (%lld bytes, %d call paths, %d ranks) merge+write %.3f s", path, bytes, ncnodes,
                  size, PMPI_Wtime() - t0);
        return 0;
    }
    if (ok == 0)
        cube_writer_abort(w);
    hprof_say("profile not written: %s", err[0] ? err : "writing the metric values failed");
    return -1;
}

static int write_values(MPI_Comm comm, int rank, cube_writer *w, const merge_info *info, int nthreads, int k,
                        value_columns *columns, const int *ids, int nlocal, int nglobal,
                        const reduced_file *rf)
{
    if (rf) {
        int sorted = columns && ids && collect_columns_sort(columns, ids, nlocal, nglobal) == 0, all = 0;
        quiet_allreduce(&sorted, &all, 1, MPI_INT, MPI_MIN, comm);
        return all ? location_reduce_write(comm, k, w, columns, nglobal, rf) : -1;
    }
    collect_job job = { comm,   rank,   rank == 0 ? w : NULL, nthreads, k, info->compress, columns, ids,
                        nlocal, nglobal };
    return collect_values(&job) == 0 && ids ? 0 : -1;
}

/* The ranks' time histograms and the heaviest paths over time, as their
 * own member (collective). */
static void write_timeline(MPI_Comm comm, int rank, cube_writer *w, const merge_info *info,
                           const local_profile *lp, const int *ids, int nglobal, int *rc)
{
    size_t len = 0;
    timeline_paths tp = { lp, ids, nglobal, 0, { 0 } };
    unsigned sizes[TIMELINE_SIZES];
    timeline_file_sizes(info->timeline, &tp, sizes);
    path_series_select(comm, rank, &tp, info->time_paths, sizes, TIMELINE_SIZES); /* agrees on sizes too */
    timeline_outcome outcome = TIMELINE_NONE;
    unsigned char *member = timeline_file_member(comm, sizes, info->timeline, info->phases, info->nphases,
                                                 info->phases_dropped, &tp, &len, &outcome);
    const char *why = rank == 0 && *rc == 0 ? timeline_dropped_why(outcome) : NULL;
    if (why)
        hprof_say("time line dropped: %s; the profile is written without it", why);
    if (rank == 0 && member && *rc == 0 && cube_writer_add_member(w, TIMELINE_MEMBER, member, len) != 0)
        *rc = -1;
    free(member);
}

int hprof_merge_and_write(const merge_info *info)
{
    MPI_Comm comm;
    unsigned long rounds0 = quiet_collectives();
    if (quiet_comm_dup(info->comm, &comm) != MPI_SUCCESS)
        return -1;
    /* An MPI error in the merge (a message that no longer fits after a
     * failed allocation) must not abort the program: hprof checks instead. */
    PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int rank, size;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    double t0 = PMPI_Wtime(), c0 = cpu_seconds();

    local_profile *lp = local_profile_build(info->snapshot);
    if (!lp || !lp->defs) {
        hprof_verbose(1, "could not build this rank's profile; it is left empty");
        local_profile_free(lp);
        lp = empty_profile();
    }
    double t_local = PMPI_Wtime(), c_local = cpu_seconds();
    /* Every PAPI event some rank counted becomes a metric on all ranks. */
    unsigned long long events = metrics_local_events();
    int agreed_k = 1;
    agree_first(comm, &events, &agreed_k);
    metrics_set_events(events);
    value_columns *columns = collect_columns(lp); /* frees the dense values */
    /* The other ranks' definitions join this rank's: its own cnodes keep
     * their ids, which the columns hold. */
    int nlocal = lp->defs->ncnodes, nglobal = 0;
    int *ids = defs_reduce(comm, lp->defs, &nglobal);
    if (!ids)
        hprof_verbose(1, "could not place this rank's call paths in the profile");
    const defs *g = lp->defs; /* on rank 0: every rank's definitions */

    double t_unified = PMPI_Wtime(), c_unified = cpu_seconds();
    layout l;
    int k = simulated_ranks(agreed_k, rank, size), rc = 0;
    long long nranks = (long long)size * k;
    reduced_file rf;
    int reduced = location_reduce_wanted(nranks);
    if (reduced) {
        location_reduce_plan(comm, k, info->process_rank, columns, &rf);
        reduced_layout(&l, size, &rf);
        rc = l.procs && l.node_names ? 0 : -1;
    } else {
        rc = gather_layout(comm, rank, size, info->process_rank, lp, k, &l);
    }
    char path[4096] = "";
    cube_writer *w;
    int opened = open_output(rank, (int)nranks, info, path, sizeof path, &w);
    int defined = opened && (rank != 0 || (rc == 0 && define_file(w, g, &l, info, k, reduced) == 0));
    quiet_bcast_ints(&defined, 1, comm); /* rank 0's: opened and defined; the others wait meanwhile */
    double t_defined = PMPI_Wtime(), c_defined = cpu_seconds();
    rc = defined ? write_values(comm, rank, w, info, lp->nthreads, k, columns, ids, nlocal, nglobal,
                                reduced ? &rf : NULL)
                 : -1;
    double t_values = PMPI_Wtime(), c_values = cpu_seconds();
    if (defined)
        write_timeline(comm, rank, w, info, lp, ids, nglobal, &rc);
    hprof_verbose(1,
                  "merge: local profile %.3f s, unified definitions %.3f s, written %.3f s, values %.3f s,"
                  " time line %.3f s (this rank's CPU time %.3f, %.3f, %.3f, %.3f, %.3f s), %lu collectives",
                  t_local - t0, t_unified - t_local, t_defined - t_unified, t_values - t_defined,
                  PMPI_Wtime() - t_values, c_local - c0, c_unified - c_local, c_defined - c_unified,
                  c_values - c_defined, cpu_seconds() - c_values, quiet_collectives() - rounds0);
    if (rank == 0 && opened)
        rc = finish_output(w, defined && rc == 0, path, nglobal, (int)nranks, t0);
    if (rank == 0 && rc == 0 && reduced)
        hprof_say(
            "%lld ranks: the profile keeps per call path the sum, min and max over the ranks and the rows"
            " of 3 key ranks (HPROF_LOCATIONS=all keeps every rank)",
            nranks);
    if (rank == 0 && rc == 0 && k > 1)
        hprof_say(
            "SIMULATED: each of the %d ranks stands for %d ranks in %s: %d processes, rank r*%d+j holding"
            " rank r's values (times x (1 + j/%d), counts as they are), not a measurement of %d ranks",
            size, k, path, (int)nranks, k, 4 * k, (int)nranks);
    int written = rc == 0;
    quiet_bcast_ints(&written, 1, comm); /* the others rest while rank 0 completes the file */
    free(ids);
    collect_columns_free(columns);
    free_layout(&l);
    local_profile_free(lp);
    PMPI_Comm_free(&comm);
    return rc;
}

void hprof_merge_drop_output(void)
{
    cw_tmp_drop_open();
}
