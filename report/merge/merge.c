/*
 * merge.c - cross-rank unification of definitions and collection of values.
 * Everything goes through PMPI_ on a private communicator: hprof never
 * measures its own communication and never mixes with the program's messages.
 */
#include "merge.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cube_writer.h"
#include "cw_order.h"
#include "defs.h"
#include "local_profile.h"
#include "log.h"
#include "metrics.h"
#include "output_name.h"
#include "path_series.h"
#include "profile_file.h"
#include "timeline_file.h"

#define TAG_DEFS 4711
#define HOST_LEN 64
#define CHUNK_VALUES (1 << 22)  /* doubles rank 0 receives per round: 32 MiB */

/* ---- definitions: binomial tree reduction, then broadcast ---------------- */

static void absorb_serialized(defs *into, const char *buf, size_t len)
{
    defs *d = defs_deserialize(buf, len);
    if (!d || defs_absorb(into, d, NULL) != 0)
        hprof_verbose(1, "could not unify the definitions of a subtree of ranks");
    defs_free(d);
}

/* After the loop, rank 0's defs hold every rank's definitions. */
static void reduce_defs(MPI_Comm comm, int rank, int size, defs *mine)
{
    for (int step = 1; step < size; step <<= 1) {
        if (rank & step) {
            char *buf = NULL;
            size_t len = 0;
            if (defs_serialize(mine, &buf, &len) != 0 || len > INT_MAX)
                len = 0; /* send nothing rather than leave the parent waiting */
            PMPI_Send(buf, (int)len, MPI_BYTE, rank - step, TAG_DEFS, comm);
            free(buf);
            return;
        }
        if (rank + step < size) {
            MPI_Status st;
            int len;
            PMPI_Probe(rank + step, TAG_DEFS, comm, &st);
            PMPI_Get_count(&st, MPI_BYTE, &len);
            char *buf = malloc(len > 0 ? (size_t)len : 1);
            PMPI_Recv(buf, len, MPI_BYTE, rank + step, TAG_DEFS, comm, MPI_STATUS_IGNORE);
            if (buf && len > 0)
                absorb_serialized(mine, buf, (size_t)len);
            free(buf);
        }
    }
}

/* Every rank gets rank 0's unified definitions (rank 0 keeps its own:
 * root_defs then belongs to the caller's result). */
static defs *broadcast_defs(MPI_Comm comm, int rank, defs *root_defs)
{
    char *buf = NULL;
    size_t len = 0;
    long long n = 0;
    if (rank == 0 && defs_serialize(root_defs, &buf, &len) == 0 && len <= INT_MAX)
        n = (long long)len;
    PMPI_Bcast(&n, 1, MPI_LONG_LONG, 0, comm);
    if (rank != 0)
        buf = malloc(n > 0 ? (size_t)n : 1);
    PMPI_Bcast(buf, (int)n, MPI_BYTE, 0, comm);
    defs *g = rank == 0 ? root_defs : n > 0 && buf ? defs_deserialize(buf, (size_t)n) : NULL;
    free(buf);
    return g ? g : defs_new();
}

/* The same definitions with the cnodes numbered in preorder: the cnode ids
 * of the file, and the order in which rows are written (cube_writer.h), so
 * that chunks of consecutive ids are consecutive rows. Rank 0 renumbers
 * before it broadcasts, so all ranks agree on the numbering. */
static defs *preorder_defs(defs *g)
{
    int n = g->ncnodes;
    int *parent = malloc(((size_t)n + 1) * sizeof(int));
    cw_forest f;
    defs *p = defs_new();
    int ok = parent && p;
    for (int i = 0; ok && i < n; i++)
        parent[i] = g->cnodes[i].parent;
    int built = ok && cw_forest_build(&f, parent, n, 0) == 0;
    ok = built && defs_reserve(p, g->nstrings, g->nregions, n) == 0;
    for (int i = 0; ok && i < g->nstrings; i++)
        ok = defs_string(p, g->strings[i]) == i;
    for (int i = 0; ok && i < g->nregions; i++)
        ok = defs_region(p, &g->regions[i]) == i;
    for (int k = 0; ok && k < n; k++) {
        def_cnode c = g->cnodes[f.pre[k]];
        c.parent = c.parent < 0 ? -1 : f.pre_pos[c.parent];
        ok = defs_cnode(p, &c) == k;
    }
    if (built)
        cw_forest_free(&f);
    free(parent);
    if (!ok) {
        defs_free(p);
        return g; /* out of memory: the writer will refuse the rows */
    }
    defs_free(g);
    return p;
}

/* ---- the system tree ------------------------------------------------------ */

typedef struct layout {
    int nprocs, nlocations;
    int *nthreads;            /* per rank */
    char *names;              /* thread names of all ranks, NUL-separated */
    const char **name_of;     /* per location */
    char *hosts;              /* HOST_LEN per rank */
    const char **node_names;  /* unique hosts */
    int nnodes;
    cube_process_def *procs;
} layout;

/* Points name_of[location] into the gathered blocks; a rank whose block is
 * short keeps the writer's default names. */
static void split_thread_names(layout *l, const int *lens, const int *displs)
{
    int nloc = 0;
    for (int r = 0; r < l->nprocs; r++)
        nloc += l->nthreads[r];
    l->name_of = calloc((size_t)nloc + 1, sizeof(char *));
    for (int r = 0, loc = 0; l->name_of && r < l->nprocs; loc += l->nthreads[r], r++) {
        const char *p = l->names + displs[r], *end = p + lens[r];
        for (int t = 0; t < l->nthreads[r] && p < end; t++) {
            size_t k = strnlen(p, (size_t)(end - p));
            if (p + k == end)
                break; /* not terminated: ignore the rest */
            l->name_of[loc + t] = *p ? p : NULL;
            p += k + 1;
        }
    }
}

/* Thread names travel as one NUL-separated block per rank. */
static void gather_thread_names(MPI_Comm comm, int rank, int size, const local_profile *lp, layout *l)
{
    int len = 0;
    for (int t = 0; t < lp->nthreads; t++)
        len += (int)strlen(lp->thread_names && lp->thread_names[t] ? lp->thread_names[t] : "") + 1;
    char *mine = malloc((size_t)len + 1), *p = mine;
    for (int t = 0; mine && t < lp->nthreads; t++) {
        const char *n = lp->thread_names && lp->thread_names[t] ? lp->thread_names[t] : "";
        size_t k = strlen(n) + 1;
        memcpy(p, n, k);
        p += k;
    }
    if (!mine)
        len = 0;
    int *lens = NULL, *displs = NULL, total = 0;
    if (rank == 0) {
        lens = calloc((size_t)size, sizeof(int));
        displs = calloc((size_t)size, sizeof(int));
    }
    PMPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, comm);
    if (rank == 0 && lens && displs) {
        for (int r = 0; r < size; r++) {
            displs[r] = total;
            total += lens[r];
        }
        l->names = malloc((size_t)total + 1);
    }
    PMPI_Gatherv(mine, len, MPI_CHAR, l->names, lens, displs, MPI_CHAR, 0, comm);
    free(mine);
    if (rank == 0 && l->names && lens && displs)
        split_thread_names(l, lens, displs);
    free(lens);
    free(displs);
}

static int gather_layout(MPI_Comm comm, int rank, int size, const local_profile *lp, layout *l)
{
    int nthreads = lp->nthreads;
    memset(l, 0, sizeof *l);
    l->nprocs = size;
    char host[HOST_LEN] = { 0 };
    gethostname(host, sizeof host - 1);
    if (rank == 0) {
        l->nthreads = calloc((size_t)size, sizeof(int));
        l->hosts = calloc((size_t)size, HOST_LEN);
        l->node_names = calloc((size_t)size, sizeof(char *));
        l->procs = calloc((size_t)size, sizeof(cube_process_def));
    }
    PMPI_Gather(&nthreads, 1, MPI_INT, l->nthreads, 1, MPI_INT, 0, comm);
    PMPI_Gather(host, HOST_LEN, MPI_CHAR, l->hosts, HOST_LEN, MPI_CHAR, 0, comm);
    gather_thread_names(comm, rank, size, lp, l);
    if (rank != 0)
        return 0;
    if (!l->nthreads || !l->hosts || !l->node_names || !l->procs)
        return -1;
    for (int r = 0; r < size; r++) {
        const char *h = l->hosts + (size_t)r * HOST_LEN;
        int node = -1;
        for (int k = l->nnodes - 1; k >= 0 && node < 0; k--)
            if (strcmp(l->node_names[k], h) == 0)
                node = k;
        if (node < 0) {
            node = l->nnodes++;
            l->node_names[node] = h;
        }
        l->procs[r] = (cube_process_def){ r, node, l->nthreads[r],
                                          l->name_of ? l->name_of + l->nlocations : NULL };
        l->nlocations += l->nthreads[r];
    }
    return 0;
}

static void free_layout(layout *l)
{
    free(l->names);
    free(l->name_of);
    free(l->nthreads);
    free(l->hosts);
    free(l->node_names);
    free(l->procs);
}

/* ---- values ------------------------------------------------------------------ */

typedef struct local_index {
    int *global_of;   /* local cnode -> global cnode, -1 if unknown */
    int *by_global;   /* local cnodes sorted by global id */
    int count;
} local_index;

static const int *sort_key;
static int cmp_by_global(const void *a, const void *b)
{
    int x = sort_key[*(const int *)a], y = sort_key[*(const int *)b];
    return (x > y) - (x < y);
}

static int index_local(local_index *ix, defs *g, local_profile *lp, int nglobal)
{
    int n = lp->defs->ncnodes;
    ix->global_of = malloc(((size_t)n + 1) * sizeof(int));
    ix->by_global = malloc(((size_t)n + 1) * sizeof(int));
    if (!ix->global_of || !ix->by_global || defs_absorb(g, lp->defs, ix->global_of) != 0)
        return -1;
    ix->count = 0;
    for (int i = 0; i < n; i++) {
        if (ix->global_of[i] >= nglobal)
            ix->global_of[i] = -1; /* lost in the reduction: cannot be placed */
        if (ix->global_of[i] >= 0)
            ix->by_global[ix->count++] = i;
    }
    sort_key = ix->global_of;
    qsort(ix->by_global, (size_t)ix->count, sizeof(int), cmp_by_global);
    return 0;
}

typedef struct collector {
    MPI_Comm comm;
    int rank;
    cube_writer *w;       /* rank 0 only; NULL after a write error */
    const layout *l;
    int *recvcounts, *displs;
    double *recv, *row;
} collector;

/* Sends this rank's values of cnodes [c0, c0+n) for metric m to rank 0,
 * which writes them as rows. */
static void collect_chunk(collector *c, local_profile *lp, const local_index *ix, int *cursor,
                          int m, int c0, int n, double *send)
{
    int nt = lp->nthreads;
    memset(send, 0, (size_t)n * (size_t)nt * sizeof(double));
    for (; *cursor < ix->count; (*cursor)++) {
        int local = ix->by_global[*cursor], g = ix->global_of[local];
        if (g >= c0 + n)
            break;
        for (int t = 0; t < nt; t++)
            send[(size_t)(g - c0) * nt + t] = metrics_stored(local_profile_values(lp, local, t), m);
    }
    if (c->rank == 0) {
        for (int r = 0, off = 0; r < c->l->nprocs; r++) {
            c->recvcounts[r] = n * c->l->nthreads[r];
            c->displs[r] = off;
            off += c->recvcounts[r];
        }
    }
    PMPI_Gatherv(send, n * nt, MPI_DOUBLE, c->recv, c->recvcounts, c->displs, MPI_DOUBLE, 0, c->comm);
    if (c->rank != 0 || !c->w)
        return;
    for (int k = 0; k < n && c->w; k++) {
        for (int r = 0, loc = 0; r < c->l->nprocs; r++) {
            int ntr = c->l->nthreads[r];
            for (int t = 0; t < ntr; t++)
                c->row[loc++] = c->recv[c->displs[r] + (size_t)k * ntr + t];
        }
        if (cube_writer_metric_row(c->w, c0 + k, c->row) != 0)
            c->w = NULL;
    }
}

static int collect_values(collector *c, local_profile *lp, const local_index *ix, int nglobal)
{
    int chunk = c->rank == 0 ? CHUNK_VALUES / (c->l->nlocations ? c->l->nlocations : 1) : 0;
    PMPI_Bcast(&chunk, 1, MPI_INT, 0, c->comm);
    if (chunk < 1)
        chunk = 1;
    if (chunk > nglobal && nglobal > 0)
        chunk = nglobal;
    double *send = malloc((size_t)chunk * (size_t)lp->nthreads * sizeof(double) + sizeof(double));
    if (c->rank == 0) {
        c->recvcounts = malloc((size_t)c->l->nprocs * sizeof(int));
        c->displs = malloc((size_t)c->l->nprocs * sizeof(int));
        c->recv = malloc((size_t)chunk * (size_t)c->l->nlocations * sizeof(double) + sizeof(double));
        c->row = malloc((size_t)c->l->nlocations * sizeof(double) + sizeof(double));
    }
    /* Allocation failures must not break the collective pattern: agree first. */
    int ok = send && (c->rank != 0 || (c->recvcounts && c->displs && c->recv && c->row));
    int all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, c->comm);
    for (int m = 0; all_ok && m < metrics_count(); m++) {
        if (c->w && cube_writer_metric_begin(c->w, m) != 0)
            c->w = NULL;
        int cursor = 0;
        for (int c0 = 0; c0 < nglobal; c0 += chunk)
            collect_chunk(c, lp, ix, &cursor, m, c0, nglobal - c0 < chunk ? nglobal - c0 : chunk, send);
        if (c->w && cube_writer_metric_end(c->w) != 0)
            c->w = NULL;
    }
    free(send);
    free(c->recvcounts);
    free(c->displs);
    free(c->recv);
    free(c->row);
    return all_ok && (c->rank != 0 || c->w) ? 0 : -1;
}

/* ---- the whole merge ----------------------------------------------------------- */

static local_profile *empty_profile(void)
{
    local_profile *p = calloc(1, sizeof *p);
    if (p) {
        p->defs = defs_new();
        p->nthreads = 1;
        p->values = calloc((size_t)metrics_nlocal(), sizeof(double));
    }
    return p;
}

/* Rank 0 opens the output and every rank learns whether that worked. */
/* The writer keeps reporting into err until commit or abort. */
static char writer_err[512];

static int open_output(MPI_Comm comm, int rank, int size, const merge_info *info, char *path,
                       size_t pathlen, cube_writer **w)
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
    int ok = *w != NULL;
    PMPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    return ok;
}

/* Rank 0 finishes the file and says so in one line. */
static int finish_output(cube_writer *w, int ok, const char *path, int ncnodes, int size, double t0)
{
    char err[512] = "";
    long long bytes = cube_writer_bytes(w);
    if (!ok)
        snprintf(err, sizeof err, "%s", writer_err); /* the write that failed said why */
    if (ok && cube_writer_commit(w, err, sizeof err) == 0) {
        hprof_say("wrote %s (%lld bytes, %d call paths, %d ranks) merge+write %.3f s", path, bytes,
                  ncnodes, size, PMPI_Wtime() - t0);
        return 0;
    }
    if (ok == 0)
        cube_writer_abort(w);
    hprof_say("profile not written: %s", err[0] ? err : "writing the metric values failed");
    return -1;
}

/* ix: this rank's cnodes in the unified numbering (kept by the caller for
 * the paths over time). */
static int write_values(MPI_Comm comm, int rank, cube_writer *w, const layout *l, defs *g,
                        local_profile *lp, int nglobal, local_index *ix)
{
    collector c = { comm, rank, w, l, NULL, NULL, NULL, NULL };
    int indexed = index_local(ix, g, lp, nglobal) == 0;
    if (!indexed)
        ix->count = 0; /* send zeros, but keep step with the other ranks */
    int rc = collect_values(&c, lp, ix, nglobal);
    return rc == 0 && indexed && (rank != 0 || c.w) ? 0 : -1;
}

/* The ranks' time histograms and the heaviest paths over time, as their
 * own member (collective). */
static void write_timeline(MPI_Comm comm, int rank, cube_writer *w, const merge_info *info,
                           const defs *g, const local_profile *lp, const local_index *ix, int *rc)
{
    size_t len = 0;
    timeline_paths tp = { g, lp, ix->count ? ix->global_of : NULL, 0, { 0 } };
    path_series_select(comm, rank, &tp, info->time_paths);
    char *text = timeline_file_text(comm, info->timeline, info->phases, info->nphases, &tp, &len);
    if (rank == 0 && text && *rc == 0 && cube_writer_add_member(w, TIMELINE_MEMBER, text, len) != 0)
        *rc = -1;
    free(text);
}

int hprof_merge_and_write(const merge_info *info)
{
    MPI_Comm comm;
    if (PMPI_Comm_dup(info->comm, &comm) != MPI_SUCCESS)
        return -1;
    int rank, size;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    double t0 = PMPI_Wtime();

    local_profile *lp = local_profile_build();
    if (!lp || !lp->defs) {
        hprof_verbose(1, "could not build this rank's profile; it is left empty");
        local_profile_free(lp);
        lp = empty_profile();
    }
    double t_local = PMPI_Wtime();
    /* Reduce a copy: lp->defs must keep this rank's own cnode ids. */
    defs *unified = defs_new();
    if (unified)
        defs_absorb(unified, lp->defs, NULL);
    reduce_defs(comm, rank, size, unified);
    if (rank == 0)
        unified = preorder_defs(unified);
    defs *g = broadcast_defs(comm, rank, unified);
    if (g != unified)
        defs_free(unified);
    int nglobal = g->ncnodes;
    /* Every PAPI event some rank counted becomes a metric on all ranks. */
    unsigned long long events = metrics_local_events(), all_events = 0;
    PMPI_Allreduce(&events, &all_events, 1, MPI_UNSIGNED_LONG_LONG, MPI_BOR, comm);
    metrics_set_events(all_events);

    double t_unified = PMPI_Wtime();
    layout l;
    int rc = gather_layout(comm, rank, size, lp, &l);
    char path[4096] = "";
    cube_writer *w;
    int opened = open_output(comm, rank, size, info, path, sizeof path, &w);
    int defined = opened && (rank != 0 || (rc == 0 && profile_file_define(w, g, l.node_names, l.nnodes, l.procs, l.nprocs, info->attr_keys, info->attr_values, info->nattrs) == 0));
    PMPI_Bcast(&defined, 1, MPI_INT, 0, comm);
    double t_defined = PMPI_Wtime();
    local_index ix = { 0 };
    rc = defined ? write_values(comm, rank, w, &l, g, lp, nglobal, &ix) : -1;
    hprof_verbose(1, "merge: local profile %.3f s, unified definitions %.3f s, written %.3f s, values %.3f s",
                  t_local - t0, t_unified - t_local, t_defined - t_unified, PMPI_Wtime() - t_defined);
    if (defined)
        write_timeline(comm, rank, w, info, g, lp, &ix, &rc);
    free(ix.global_of);
    free(ix.by_global);
    if (rank == 0 && opened)
        rc = finish_output(w, defined && rc == 0, path, nglobal, size, t0);
    defs_free(g);
    free_layout(&l);
    local_profile_free(lp);
    PMPI_Comm_free(&comm);
    return rc;
}
