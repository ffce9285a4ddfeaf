#include "tools/hprof-merge/offline_merge.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/cube/reader/cube_reader.h"
#include "report/cube/writer/cube_writer.h"
#include "report/profile/defs.h"
#include "report/profile/metrics.h"
#include "tools/hprof-merge/merged_attrs.h"

#define REMAPPING_MEMBER "remapping.spec" /* report/profile/remapping_spec.h's, copied as it is */
#define MAX_VALUES (1ull << 31)           /* call paths x locations of one metric in memory */

/* One input file and where its parts go in the merged profile. */
typedef struct input {
    const char *path;
    cube_profile *p;
    int *region_map; /* file region -> merged region */
    int *cnode_map;  /* file cnode -> merged cnode */
    int *loc_col;    /* file location -> merged location (column) */
} input;

/* A process of the merged profile: one of an input's. */
typedef struct out_proc {
    int input, proc, rank, node, nthreads, first_loc;
    const char **thread_names;
} out_proc;

typedef struct merge {
    input *in;
    int nin;
    defs *d;
    const cube_region **region_src; /* merged region -> the first input's definition */
    int nregion_src;
    out_proc *procs;
    int nprocs, nlocs;
    const char **nodes;
    int nnodes;
    const cube_metric **metrics; /* merged metric -> the first input's definition */
    int nmetrics;
    char *msg;
    size_t msglen;
    char missing[256]; /* the job's ranks no input holds ("1, 4-6"), for the last line */
} merge;

/* The one line of an error into msg; -1. */
__attribute__((format(printf, 2, 3))) static int fail(merge *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->msg, m->msglen, fmt, ap);
    va_end(ap);
    return -1;
}

static int open_inputs(merge *m, const char *const *paths)
{
    char err[512];
    for (int i = 0; i < m->nin; i++) {
        input *in = &m->in[i];
        in->path = paths[i];
        in->p = cube_open(paths[i], err, sizeof err);
        if (!in->p)
            return fail(m, "%s: %s", paths[i], err);
        if (in->p->nprocs < 1 || in->p->nlocs < 1 || in->p->ncnodes < 1)
            return fail(m, "%s: %s", paths[i], "no process, location or call path: not a profile of ranks");
        for (int k = 0; k < in->p->nmetrics; k++) {
            const cube_metric *mt = &in->p->metrics[k];
            if (mt->kind == CUBE_KIND_DERIVED || mt->aggr == CUBE_AGGR_RATIO)
                continue;
            if (mt->kind != CUBE_KIND_EXCLUSIVE || !mt->loadable || mt->parent >= 0)
                return fail(m, "%s: metric %s is not an exclusive root metric, as hprof writes them",
                            paths[i], mt->uniq_name);
        }
        for (int k = 0; k < in->p->ncnodes; k++)
            if (in->p->cnodes[k].region < 0)
                return fail(m, "%s: %s", paths[i], "a call path without a region");
    }
    return 0;
}

/* One job's profiles only: a token each run's ranks agreed on at start-up
 * (hprof::run), and the job's size. Profiles of older versions have no
 * token: only their sizes are compared. */
static int one_run(merge *m)
{
    const char *run = cube_attr_get(m->in[0].p, "hprof::run");
    const char *ranks = cube_attr_get(m->in[0].p, "hprof::ranks");
    for (int i = 1; i < m->nin; i++) {
        const char *r = cube_attr_get(m->in[i].p, "hprof::run");
        const char *n = cube_attr_get(m->in[i].p, "hprof::ranks");
        if ((run == NULL) != (r == NULL) || (run && strcmp(run, r) != 0))
            return fail(m, "%s and %s are profiles of different runs (hprof::run): not one job",
                        m->in[0].path, m->in[i].path);
        if (ranks && n && strcmp(ranks, n) != 0)
            return fail(m, "%s and %s are profiles of jobs of %s and %s ranks: not one job", m->in[0].path,
                        m->in[i].path, ranks, n);
    }
    return 0;
}

/* The call tree's shape: with call sites merged (Score-P's) or one cnode
 * per call site, as the run chose; every input must agree. */
static int callsites_merged(merge *m, int *merged)
{
    const char *first = cube_attr_get(m->in[0].p, "hprof::callsites");
    for (int i = 1; i < m->nin; i++) {
        const char *v = cube_attr_get(m->in[i].p, "hprof::callsites");
        if ((first == NULL) != (v == NULL) || (first && strcmp(first, v) != 0))
            return fail(m, "%s and %s: the runs' call sites differ (hprof::callsites): not one job",
                        m->in[0].path, m->in[i].path);
    }
    *merged = first && strcmp(first, "merge") == 0;
    return 0;
}

static int by_rank(const void *a, const void *b)
{
    const out_proc *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int node_of(merge *m, const char *name)
{
    for (int i = 0; i < m->nnodes; i++)
        if (strcmp(m->nodes[i], name) == 0)
            return i;
    m->nodes[m->nnodes] = name;
    return m->nnodes++;
}

/* The processes of every input, in rank order; each rank once. */
static int place_processes(merge *m)
{
    int n = 0;
    for (int i = 0; i < m->nin; i++)
        n += m->in[i].p->nprocs;
    m->procs = calloc((size_t)n, sizeof *m->procs);
    m->nodes = calloc((size_t)n, sizeof *m->nodes);
    if (!m->procs || !m->nodes)
        return fail(m, "out of memory");
    for (int i = 0; i < m->nin; i++)
        for (int k = 0; k < m->in[i].p->nprocs; k++)
            m->procs[m->nprocs++] = (out_proc){ i, k, m->in[i].p->procs[k].rank, 0, 0, 0, NULL };
    qsort(m->procs, (size_t)m->nprocs, sizeof *m->procs, by_rank);
    for (int j = 0; j < m->nprocs; j++) {
        out_proc *o = &m->procs[j];
        const cube_profile *p = m->in[o->input].p;
        if (j > 0 && m->procs[j - 1].rank == o->rank) {
            return fail(m, "rank %d is in both %s and %s", o->rank, m->in[m->procs[j - 1].input].path,
                        m->in[o->input].path);
        }
        int sys = p->procs[o->proc].sysnode;
        o->node = node_of(m, sys >= 0 && p->sysnodes[sys].name ? p->sysnodes[sys].name : "localhost");
        for (int l = 0; l < p->nlocs; l++)
            if (p->locs[l].process == o->proc && p->locs[l].thread + 1 > o->nthreads)
                o->nthreads = p->locs[l].thread + 1;
        o->thread_names = calloc((size_t)o->nthreads + 1, sizeof *o->thread_names);
        if (!o->thread_names)
            return fail(m, "out of memory");
        o->first_loc = m->nlocs;
        m->nlocs += o->nthreads;
    }
    for (int i = 0; i < m->nin; i++)
        if (!(m->in[i].loc_col = calloc((size_t)m->in[i].p->nlocs, sizeof(int))))
            return fail(m, "out of memory");
    for (int j = 0; j < m->nprocs; j++) {
        out_proc *o = &m->procs[j];
        const cube_profile *p = m->in[o->input].p;
        for (int l = 0; l < p->nlocs; l++)
            if (p->locs[l].process == o->proc && p->locs[l].thread >= 0) {
                m->in[o->input].loc_col[l] = o->first_loc + p->locs[l].thread;
                o->thread_names[p->locs[l].thread] = p->locs[l].name;
            }
        for (int t = 0; t < o->nthreads; t++)
            if (!o->thread_names[t])
                return fail(m, "%s: %s", m->in[o->input].path, "a process's threads are not numbered 0..n-1");
    }
    return 0;
}

/* A region's kind, as the unification keys it: what the file says of it
 * beside its name and place (paradigm, role, description, last line). */
static int region_kind(defs *d, const cube_region *r)
{
    char key[1024];
    snprintf(key, sizeof key, "%s\n%s\n%s\n%ld", r->paradigm ? r->paradigm : "", r->role ? r->role : "",
             r->descr ? r->descr : "", r->end);
    return defs_string(d, key);
}

static int unify_regions(merge *m, input *in)
{
    const cube_profile *p = in->p;
    in->region_map = calloc((size_t)p->nregions + 1, sizeof(int));
    if (!in->region_map)
        return -1;
    for (int k = 0; k < p->nregions; k++) {
        const cube_region *r = &p->regions[k];
        /* the writer's mod is the source file when the ELF object is its
         * own attribute (hprof::module), else the object */
        def_region dr = { defs_string(m->d, r->name),
                          defs_string(m->d, r->mangled_name),
                          defs_string(m->d, r->module ? r->module : r->mod),
                          r->module ? defs_string(m->d, r->mod) : -1,
                          (int)r->begin,
                          region_kind(m->d, r) };
        int id = defs_region(m->d, &dr);
        if (id < 0)
            return -1;
        if (id >= m->nregion_src) { /* a new region: ids grow by one */
            const cube_region **s = realloc(m->region_src, ((size_t)id + 1) * sizeof *s);
            if (!s)
                return -1;
            m->region_src = s;
            m->region_src[id] = r;
            m->nregion_src = id + 1;
        }
        in->region_map[k] = id;
    }
    return 0;
}

/* Cnodes in the file's order: parents come before their children. */
static int unify_cnodes(merge *m, input *in)
{
    const cube_profile *p = in->p;
    in->cnode_map = calloc((size_t)p->ncnodes + 1, sizeof(int));
    if (!in->cnode_map)
        return -1;
    for (int k = 0; k < p->ncnodes; k++) {
        const cube_cnode *c = &p->cnodes[k];
        def_cnode dc = { c->parent >= 0 ? in->cnode_map[c->parent] : -1, in->region_map[c->region],
                         defs_string(m->d, c->mod), (int)c->line };
        if ((in->cnode_map[k] = defs_cnode(m->d, &dc)) < 0)
            return -1;
    }
    return 0;
}

static int unify(merge *m, int merge_sites)
{
    m->d = defs_new(merge_sites);
    if (!m->d)
        return fail(m, "out of memory");
    for (int i = 0; i < m->nin; i++)
        if (unify_regions(m, &m->in[i]) != 0 || unify_cnodes(m, &m->in[i]) != 0)
            return fail(m, "out of memory");
    return 0;
}

static int metric_index(const merge *m, const char *name)
{
    for (int k = 0; k < m->nmetrics; k++)
        if (strcmp(m->metrics[k]->uniq_name, name) == 0)
            return k;
    return -1;
}

static int in_file(const cube_profile *p, const cube_metric *mt)
{
    return cube_find_metric(p, mt->uniq_name) >= 0;
}

static int countable(const cube_metric *mt)
{
    return mt->kind != CUBE_KIND_DERIVED && mt->aggr != CUBE_AGGR_RATIO;
}

/* The union of the inputs' metrics, in the order MPI_Finalize's merge
 * gives them: hprof's fixed metrics in their order (metrics.h), then the
 * others (PAPI events), each new one after the one before it in its own
 * file and after those its file lacks (the inputs taken in rank order). */
static int union_metrics(merge *m)
{
    int cap = M_COUNT;
    for (int i = 0; i < m->nin; i++)
        cap += m->in[i].p->nmetrics;
    m->metrics = calloc((size_t)cap + 1, sizeof *m->metrics);
    if (!m->metrics)
        return fail(m, "out of memory");
    for (int f = 0; f < M_COUNT; f++)
        for (int i = 0; i < m->nin; i++) {
            int at = cube_find_metric(m->in[i].p, hprof_metric_defs[f].uniq_name);
            if (at >= 0 && countable(&m->in[i].p->metrics[at])) {
                m->metrics[m->nmetrics++] = &m->in[i].p->metrics[at];
                break;
            }
        }
    int fixed = m->nmetrics;
    for (int j = 0; j < m->nprocs; j++) {
        if (j > 0 && m->procs[j - 1].input == m->procs[j].input)
            continue;
        const cube_profile *p = m->in[m->procs[j].input].p;
        int after = fixed - 1; /* merged index of this file's previous event */
        for (int k = 0; k < p->nmetrics; k++) {
            const cube_metric *mt = &p->metrics[k];
            if (!countable(mt) || metrics_fixed_index(mt->uniq_name) >= 0)
                continue;
            int at = metric_index(m, mt->uniq_name);
            if (at < 0) {
                at = after + 1;
                while (at < m->nmetrics && !in_file(p, m->metrics[at]))
                    at++;
                memmove(&m->metrics[at + 1], &m->metrics[at],
                        (size_t)(m->nmetrics - at) * sizeof *m->metrics);
                m->metrics[at] = mt;
                m->nmetrics++;
            }
            after = at;
        }
    }
    for (int i = 0; i < m->nin; i++)
        for (int k = 0; k < m->in[i].p->nmetrics; k++) {
            const cube_metric *mt = &m->in[i].p->metrics[k];
            int at = countable(mt) ? metric_index(m, mt->uniq_name) : 0;
            if (strcmp(m->metrics[at]->dtype, mt->dtype) != 0 && countable(mt))
                return fail(m, "%s: metric %s has another type than in the other profiles", m->in[i].path,
                            mt->uniq_name);
        }
    return 0;
}

/* ---- values ---- */

typedef struct row_ctx {
    const merge *m;
    const input *in;
    double *out; /* [merged cnode][merged location] */
    int aggr;
} row_ctx;

/* Two values at one (cnode, location): only where call sites merged two
 * of a rank's cnodes into one. Minima and maxima store 0 where never
 * visited (cube_writer.h). */
static double combine(int aggr, double a, double b)
{
    if (aggr == CUBE_AGGR_MIN)
        return a == 0 ? b : b == 0 ? a : (a < b ? a : b);
    if (aggr == CUBE_AGGR_MAX)
        return a > b ? a : b;
    return a + b;
}

static void take_row(void *ctx, int cnode, const double *row)
{
    row_ctx *r = ctx;
    size_t base = (size_t)r->in->cnode_map[cnode] * (size_t)r->m->nlocs;
    for (int l = 0; l < r->in->p->nlocs; l++) {
        double *v = &r->out[base + (size_t)r->in->loc_col[l]];
        *v = combine(r->aggr, *v, row[l]);
    }
}

static int write_metric(merge *m, cube_writer *w, int k, double *out)
{
    char err[512];
    size_t n = (size_t)m->d->ncnodes * (size_t)m->nlocs;
    memset(out, 0, n * sizeof *out);
    for (int i = 0; i < m->nin; i++) {
        input *in = &m->in[i];
        int at = cube_find_metric(in->p, m->metrics[k]->uniq_name);
        if (at < 0)
            continue; /* 0 on this file's ranks */
        row_ctx ctx = { m, in, out, in->p->metrics[at].aggr };
        if (cube_scan_metric(in->p, at, take_row, &ctx, err, sizeof err) != 0)
            return fail(m, "%s: %s", in->path, err);
    }
    if (cube_writer_metric_begin(w, k) != 0)
        return -1;
    for (int row = 0; row < m->d->ncnodes; row++) {
        int c = cube_writer_row_cnode(w, k, row);
        if (c < 0 || cube_writer_metric_row(w, c, out + (size_t)c * (size_t)m->nlocs) != 0)
            return -1;
    }
    return cube_writer_metric_end(w);
}

/* ---- the file ---- */

static int define(merge *m, cube_writer *w)
{
    const defs *d = m->d;
    cube_metric_def *md = calloc((size_t)m->nmetrics + 1, sizeof *md);
    cube_region_def *rd = calloc((size_t)d->nregions + 1, sizeof *rd);
    cube_cnode_def *cd = calloc((size_t)d->ncnodes + 1, sizeof *cd);
    cube_process_def *pd = calloc((size_t)m->nprocs + 1, sizeof *pd);
    merged_attrs a = { 0 };
    const cube_profile **in = calloc((size_t)m->nin, sizeof *in);
    for (int i = 0; in && i < m->nin; i++)
        in[i] = m->in[i].p;
    int *ranks = calloc((size_t)m->nprocs + 1, sizeof *ranks);
    for (int j = 0; ranks && j < m->nprocs; j++)
        ranks[j] = m->procs[j].rank;
    int rc = -1;
    if (md && rd && cd && pd && in && ranks &&
        merged_attrs_make(&a, in, m->nin, m->in[m->procs[0].input].p, ranks, m->nprocs) == 0) {
        for (int k = 0; k < a.n; k++)
            if (strcmp(a.keys[k], "hprof::missing_ranks") == 0)
                snprintf(m->missing, sizeof m->missing, "%s", a.values[k]);
        for (int k = 0; k < m->nmetrics; k++) {
            const cube_metric *mt = m->metrics[k];
            md[k] = (cube_metric_def){ mt->uniq_name, mt->disp_name, mt->dtype, mt->uom, mt->descr, 0, -1 };
        }
        for (int k = 0; k < d->nregions; k++) {
            const cube_region *r = m->region_src[k];
            rd[k] = (cube_region_def){ r->name,
                                       r->mangled_name,
                                       r->module ? r->module : r->mod,
                                       r->module ? r->mod : NULL,
                                       r->begin,
                                       r->end,
                                       r->paradigm,
                                       r->role,
                                       r->descr };
        }
        for (int k = 0; k < d->ncnodes; k++) {
            const def_cnode *c = &d->cnodes[k];
            cd[k] = (cube_cnode_def){ c->parent, c->region, defs_str(d, c->cs_file), c->cs_line };
        }
        for (int j = 0; j < m->nprocs; j++)
            pd[j] = (cube_process_def){ m->procs[j].rank, m->procs[j].node, m->procs[j].nthreads,
                                        m->procs[j].thread_names };
        cube_defs defs = { md,       m->nmetrics, rd, d->nregions, cd,     d->ncnodes, "machine",
                           m->nodes, m->nnodes,   pd, m->nprocs,   a.keys, a.values,   a.n };
        rc = cube_writer_define(w, &defs);
    }
    merged_attrs_free(&a);
    free(md), free(rd), free(cd), free(pd), free(in), free(ranks);
    return rc;
}

/* The remapping spec (report/profile/remapping_spec.h) of the first input
 * that has one. */
static int copy_members(merge *m, cube_writer *w)
{
    for (int i = 0; i < m->nin; i++) {
        size_t len;
        const unsigned char *spec = cube_member(m->in[i].p, REMAPPING_MEMBER, &len);
        if (spec)
            return cube_writer_add_member(w, REMAPPING_MEMBER, spec, len);
    }
    return 0;
}

static int write_file(merge *m, const offline_merge_opts *o)
{
    char err[512] = "";
    size_t n = (size_t)m->d->ncnodes * (size_t)m->nlocs;
    if (n > MAX_VALUES)
        return fail(m, "too many call paths times locations to hold one metric in memory");
    double *out = malloc((n + 1) * sizeof *out);
    if (!out)
        return fail(m, "out of memory");
    cube_writer *w = cube_writer_create(o->output, o->overwrite_ok, err, sizeof err);
    if (!w) {
        free(out);
        return fail(m, "%s", err);
    }
    int rc = cube_writer_set_compress(w, o->compress);
    if (rc == 0)
        rc = define(m, w);
    for (int k = 0; rc == 0 && k < m->nmetrics; k++)
        rc = write_metric(m, w, k, out);
    if (rc == 0)
        rc = copy_members(m, w);
    free(out);
    if (rc != 0) {
        /* a reason of the inputs' is in msg already; else the writer's */
        if (!m->msg[0])
            snprintf(m->msg, m->msglen, "%s: %s", o->output, err[0] ? err : "writing failed");
        cube_writer_abort(w);
        return -1;
    }
    if (cube_writer_commit(w, err, sizeof err) != 0)
        return fail(m, "%s", err);
    snprintf(m->msg, m->msglen, "wrote %s (%d ranks from %d profiles, %d call paths, %d metrics%s%s)",
             o->output, m->nprocs, m->nin, m->d->ncnodes, m->nmetrics,
             m->missing[0] ? "; missing ranks: " : "", m->missing);
    return 0;
}

static void merge_free(merge *m)
{
    for (int i = 0; m->in && i < m->nin; i++) {
        cube_close(m->in[i].p);
        free(m->in[i].region_map), free(m->in[i].cnode_map), free(m->in[i].loc_col);
    }
    for (int j = 0; m->procs && j < m->nprocs; j++)
        free(m->procs[j].thread_names);
    free(m->in), free(m->procs), free(m->nodes), free(m->metrics), free(m->region_src);
    defs_free(m->d);
}

int offline_merge(const char *const *inputs, int ninputs, const offline_merge_opts *opts, char *msg,
                  size_t msglen)
{
    merge m = { 0 };
    m.msg = msg, m.msglen = msglen, m.nin = ninputs;
    msg[0] = '\0';
    int merge_sites = 0;
    if (ninputs < 1)
        return fail(&m, "no profile to merge");
    m.in = calloc((size_t)ninputs, sizeof *m.in);
    int rc = !m.in ? fail(&m, "out of memory") : open_inputs(&m, inputs);
    if (rc == 0)
        rc = one_run(&m);
    if (rc == 0)
        rc = callsites_merged(&m, &merge_sites);
    if (rc == 0)
        rc = place_processes(&m);
    if (rc == 0)
        rc = unify(&m, merge_sites);
    if (rc == 0)
        rc = union_metrics(&m);
    if (rc == 0)
        rc = write_file(&m, opts);
    merge_free(&m);
    return rc;
}
