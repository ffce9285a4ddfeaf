#include "tools/hprof-merge/offline_merge.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/cube/reader/cube_reader.h"
#include "report/cube/writer/cube_writer.h"
#include "report/profile/defs.h"
#include "report/profile/locations_file.h"
#include "report/profile/metrics.h"
#include "tools/hprof-merge/merged_attrs.h"
#include "tools/hprof-merge/reduced_fold.h"
#include "tools/hprof-merge/value_combine.h"

#define REMAPPING_MEMBER "remapping.spec" /* report/profile/remapping_spec.h's, copied as it is */
#define MAX_VALUES (1ull << 31)           /* call paths x locations of one metric in memory */
#define VALUES_BUDGET (1ull << 25)        /* values held at once (256 MB) where metrics share a pass */

/* One input file: its path and where its processes went. The file is
 * open only while it is read (once for its definitions, once a group of
 * metrics for its values): a merge of 100k files holds one at a time. */
typedef struct input {
    const char *path;
    int first_proc, nprocs, nlocs, ncnodes; /* its processes: proc_slot[first_proc + k] */
    int first_name, nnames; /* its metrics beside hprof's fixed ones: metric_names[first_name...] */
} input;

/* A process of the merged profile: one of an input's. */
typedef struct out_proc {
    int input, proc, rank, node, nthreads, first_loc;
    const char **thread_names;
} out_proc;

/* A metric's definition, its strings kept in the merge's definitions. */
typedef struct metric_copy {
    int uniq, disp, dtype, uom, descr;
} metric_copy;

/* A region's definition as the first input gave it (string ids). */
typedef struct region_copy {
    int name, mangled, module, file, paradigm, role, descr;
    long begin, end;
} region_copy;

typedef struct merge {
    input *in;
    int nin;
    defs *d; /* regions, cnodes, and every string kept */
    region_copy *region_src;
    int nregion_src;
    out_proc *procs;
    int nprocs, procs_cap, nlocs;
    int *proc_slot;      /* an input's k-th process -> merged process */
    int *node_of_string; /* string id -> node, -1 for none yet */
    int nnode_of_string;
    const char **nodes;
    int nnodes, nodes_cap;
    int *metric_names; /* the inputs' other metrics' names (string id; -1 - id: not countable) */
    int nmetric_names, metric_names_cap;
    metric_copy seen[64 + M_COUNT]; /* every metric name seen, first definition */
    int nseen;
    int fixed_seen[M_COUNT]; /* index into seen of the first countable one, -1 for none */
    metric_copy *metrics;    /* the merged profile's */
    int nmetrics;
    int callsites;  /* the runs' hprof::callsites string id, -1 for none */
    int run, ranks; /* the first input's hprof::run and hprof::ranks string ids, -1 for none */
    merged_attrs attrs;
    unsigned char *spec; /* the first remapping spec seen */
    size_t spec_len;
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

static int countable(const cube_metric *mt)
{
    return mt->kind != CUBE_KIND_DERIVED && mt->aggr != CUBE_AGGR_RATIO;
}

/* The checks of one input as hprof writes profiles. */
static int check_input(merge *m, const char *path, const cube_profile *p)
{
    if (p->nprocs < 1 || p->nlocs < 1 || p->ncnodes < 1)
        return fail(m, "%s: %s", path, "no process, location or call path: not a profile of ranks");
    for (int k = 0; k < p->nmetrics; k++) {
        const cube_metric *mt = &p->metrics[k];
        if (!countable(mt))
            continue;
        if (mt->kind != CUBE_KIND_EXCLUSIVE || !mt->loadable || mt->parent >= 0)
            return fail(m, "%s: metric %s is not an exclusive root metric, as hprof writes them", path,
                        mt->uniq_name);
    }
    for (int k = 0; k < p->ncnodes; k++)
        if (p->cnodes[k].region < 0)
            return fail(m, "%s: %s", path, "a call path without a region");
    return 0;
}

/* One job's profiles only: a token each run's ranks agreed on at start-up
 * (hprof::run), and the job's size. Profiles of older versions have no
 * token: only their sizes are compared. */
static int same_run(merge *m, int i, const cube_profile *p)
{
    const char *r = cube_attr_get(p, "hprof::run"), *n = cube_attr_get(p, "hprof::ranks");
    int run = defs_string(m->d, r), ranks = defs_string(m->d, n);
    if (i == 0) {
        m->run = run, m->ranks = ranks;
        return 0;
    }
    if (run != m->run)
        return fail(m, "%s and %s are profiles of different runs (hprof::run): not one job", m->in[0].path,
                    m->in[i].path);
    if (ranks >= 0 && m->ranks >= 0 && ranks != m->ranks)
        return fail(m, "%s and %s are profiles of jobs of %s and %s ranks: not one job", m->in[0].path,
                    m->in[i].path, defs_str(m->d, m->ranks), n);
    return 0;
}

/* The call tree's shape: with call sites merged (Score-P's) or one cnode
 * per call site, as the run chose; every input must agree. */
static int callsites_agree(merge *m, int i, const cube_profile *p)
{
    int v = defs_string(m->d, cube_attr_get(p, "hprof::callsites"));
    if (i == 0)
        m->callsites = v;
    else if (v != m->callsites)
        return fail(m, "%s and %s: the runs' call sites differ (hprof::callsites): not one job",
                    m->in[0].path, m->in[i].path);
    return 0;
}

static int by_rank(const void *a, const void *b)
{
    const out_proc *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The node of a host name (a string id): a table by id, not a search of
 * the nodes, so that 100k ranks on 100k hosts cost no more than on one. */
static int node_of(merge *m, const char *name)
{
    int id = defs_string(m->d, name);
    if (id < 0)
        return -1;
    if (id >= m->nnode_of_string) {
        int n = 2 * id + 16;
        int *v = realloc(m->node_of_string, (size_t)n * sizeof *v);
        if (!v)
            return -1;
        for (int k = m->nnode_of_string; k < n; k++)
            v[k] = -1;
        m->node_of_string = v, m->nnode_of_string = n;
    }
    if (m->node_of_string[id] < 0) {
        if (m->nnodes == m->nodes_cap) {
            int cap = m->nodes_cap ? 2 * m->nodes_cap : 64;
            const char **v = realloc(m->nodes, (size_t)cap * sizeof *v);
            if (!v)
                return -1;
            m->nodes = v, m->nodes_cap = cap;
        }
        m->nodes[m->nnodes] = defs_str(m->d, id);
        m->node_of_string[id] = m->nnodes++;
    }
    return m->node_of_string[id];
}

/* One input's processes, their threads named; numbered later (place_processes). */
static int take_processes(merge *m, int i, const cube_profile *p)
{
    m->in[i].first_proc = m->nprocs;
    m->in[i].nprocs = p->nprocs;
    if (m->nprocs + p->nprocs > m->procs_cap) {
        int cap = 2 * (m->nprocs + p->nprocs) + 64;
        out_proc *v = realloc(m->procs, (size_t)cap * sizeof *v);
        if (!v)
            return fail(m, "out of memory");
        m->procs = v, m->procs_cap = cap;
    }
    for (int k = 0; k < p->nprocs; k++) {
        out_proc *o = &m->procs[m->nprocs++];
        *o = (out_proc){ i, k, p->procs[k].rank, 0, 0, 0, NULL };
        int sys = p->procs[k].sysnode;
        o->node = node_of(m, sys >= 0 && p->sysnodes[sys].name ? p->sysnodes[sys].name : "localhost");
        for (int l = 0; l < p->nlocs; l++)
            if (p->locs[l].process == k && p->locs[l].thread + 1 > o->nthreads)
                o->nthreads = p->locs[l].thread + 1;
        o->thread_names = calloc((size_t)o->nthreads + 1, sizeof *o->thread_names);
        if (o->node < 0 || !o->thread_names)
            return fail(m, "out of memory");
        for (int l = 0; l < p->nlocs; l++)
            if (p->locs[l].process == k && p->locs[l].thread >= 0)
                o->thread_names[p->locs[l].thread] = defs_str(m->d, defs_string(m->d, p->locs[l].name));
        for (int t = 0; t < o->nthreads; t++)
            if (!o->thread_names[t])
                return fail(m, "%s: %s", m->in[i].path, "a process's threads are not numbered 0..n-1");
    }
    return 0;
}

/* Every input's processes in rank order, each rank once, and their
 * locations numbered. */
static int place_processes(merge *m)
{
    qsort(m->procs, (size_t)m->nprocs, sizeof *m->procs, by_rank);
    m->proc_slot = calloc((size_t)m->nprocs + 1, sizeof *m->proc_slot);
    if (!m->proc_slot)
        return fail(m, "out of memory");
    for (int j = 0; j < m->nprocs; j++) {
        out_proc *o = &m->procs[j];
        if (j > 0 && m->procs[j - 1].rank == o->rank)
            return fail(m, "rank %d is in both %s and %s", o->rank, m->in[m->procs[j - 1].input].path,
                        m->in[o->input].path);
        m->proc_slot[m->in[o->input].first_proc + o->proc] = j;
        o->first_loc = m->nlocs;
        m->nlocs += o->nthreads;
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

static int keep_region(merge *m, int id, const cube_region *r)
{
    if (id < m->nregion_src) /* known: ids grow by one */
        return 0;
    region_copy *s = realloc(m->region_src, ((size_t)id + 1) * sizeof *s);
    if (!s)
        return -1;
    m->region_src = s;
    defs *d = m->d;
    /* the writer's mod is the source file when the ELF object is its own
     * attribute (hprof::module), else the object */
    s[id] = (region_copy){ defs_string(d, r->name),
                           defs_string(d, r->mangled_name),
                           defs_string(d, r->module ? r->module : r->mod),
                           r->module ? defs_string(d, r->mod) : -1,
                           defs_string(d, r->paradigm),
                           defs_string(d, r->role),
                           defs_string(d, r->descr),
                           r->begin,
                           r->end };
    m->nregion_src = id + 1;
    return 0;
}

static int unify_regions(merge *m, const cube_profile *p, int *region_map)
{
    for (int k = 0; k < p->nregions; k++) {
        const cube_region *r = &p->regions[k];
        def_region dr = { defs_string(m->d, r->name),
                          defs_string(m->d, r->mangled_name),
                          defs_string(m->d, r->module ? r->module : r->mod),
                          r->module ? defs_string(m->d, r->mod) : -1,
                          (int)r->begin,
                          region_kind(m->d, r) };
        int id = defs_region(m->d, &dr);
        if (id < 0 || keep_region(m, id, r) != 0)
            return -1;
        region_map[k] = id;
    }
    return 0;
}

/* Cnodes in the file's order: parents come before their children. */
static int unify_cnodes(merge *m, const cube_profile *p, const int *region_map, int *cnode_map)
{
    for (int k = 0; k < p->ncnodes; k++) {
        const cube_cnode *c = &p->cnodes[k];
        def_cnode dc = { c->parent >= 0 ? cnode_map[c->parent] : -1, region_map[c->region],
                         defs_string(m->d, c->mod), (int)c->line };
        if ((cnode_map[k] = defs_cnode(m->d, &dc)) < 0)
            return -1;
    }
    return 0;
}

/* The merged cnode of each of p's (cnode_map: p->ncnodes entries). */
static int unify(merge *m, const cube_profile *p, int *cnode_map)
{
    int *region_map = calloc((size_t)p->nregions + 1, sizeof *region_map);
    int rc =
        region_map && unify_regions(m, p, region_map) == 0 && unify_cnodes(m, p, region_map, cnode_map) == 0;
    free(region_map);
    return rc ? 0 : fail(m, "out of memory");
}

/* ---- metrics ---- */

static int seen_index(const merge *m, int uniq)
{
    for (int k = 0; k < m->nseen; k++)
        if (m->seen[k].uniq == uniq)
            return k;
    return -1;
}

static int keep_name(merge *m, int name)
{
    if (m->nmetric_names == m->metric_names_cap) {
        int cap = m->metric_names_cap ? 2 * m->metric_names_cap : 64;
        int *v = realloc(m->metric_names, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        m->metric_names = v, m->metric_names_cap = cap;
    }
    m->metric_names[m->nmetric_names++] = name;
    return 0;
}

/* One input's metrics: the first definition of each name, its other
 * metrics' names in its order (for union_metrics), its types checked. */
static int take_metrics(merge *m, int i, const cube_profile *p)
{
    defs *d = m->d;
    m->in[i].first_name = m->nmetric_names;
    for (int k = 0; k < p->nmetrics; k++) {
        const cube_metric *mt = &p->metrics[k];
        int uniq = defs_string(d, mt->uniq_name), at = seen_index(m, uniq),
            fixed = metrics_fixed_index(mt->uniq_name);
        if (at < 0 && countable(mt)) {
            if (m->nseen == (int)(sizeof m->seen / sizeof *m->seen))
                return fail(m, "%s: more metrics than hprof-merge takes (%d)", m->in[i].path, m->nseen);
            at = m->nseen++;
            m->seen[at] = (metric_copy){ uniq, defs_string(d, mt->disp_name), defs_string(d, mt->dtype),
                                         defs_string(d, mt->uom), defs_string(d, mt->descr) };
        }
        if (countable(mt) && fixed >= 0 && m->fixed_seen[fixed] < 0)
            m->fixed_seen[fixed] = at;
        if (countable(mt) && strcmp(defs_str(d, m->seen[at].dtype), mt->dtype) != 0)
            return fail(m, "%s: metric %s has another type than in the other profiles", m->in[i].path,
                        mt->uniq_name);
        if (fixed < 0 && keep_name(m, countable(mt) ? uniq : -1 - uniq) != 0)
            return fail(m, "out of memory");
    }
    m->in[i].nnames = m->nmetric_names - m->in[i].first_name;
    return 0;
}

static int metric_index(const merge *m, int uniq)
{
    for (int k = 0; k < m->nmetrics; k++)
        if (m->metrics[k].uniq == uniq)
            return k;
    return -1;
}

/* Has input in a metric of this name (countable or not)? */
static int in_file(const merge *m, const input *in, int uniq)
{
    for (int k = 0; k < in->nnames; k++) {
        int v = m->metric_names[in->first_name + k];
        if (v == uniq || -1 - v == uniq)
            return 1;
    }
    return 0;
}

/* The union of the inputs' metrics, in the order MPI_Finalize's merge
 * gives them: hprof's fixed metrics in their order (metrics.h), then the
 * others (PAPI events), each new one after the one before it in its own
 * file and after those its file lacks (the inputs taken in rank order). */
static int union_metrics(merge *m)
{
    m->metrics = calloc((size_t)m->nseen + 1, sizeof *m->metrics);
    if (!m->metrics)
        return fail(m, "out of memory");
    for (int f = 0; f < M_COUNT; f++)
        if (m->fixed_seen[f] >= 0)
            m->metrics[m->nmetrics++] = m->seen[m->fixed_seen[f]];
    int fixed = m->nmetrics;
    for (int j = 0; j < m->nprocs; j++) {
        if (j > 0 && m->procs[j - 1].input == m->procs[j].input)
            continue;
        const input *in = &m->in[m->procs[j].input];
        int after = fixed - 1; /* merged index of this file's previous event */
        for (int k = 0; k < in->nnames; k++) {
            int uniq = m->metric_names[in->first_name + k];
            if (uniq < 0)
                continue;
            int at = metric_index(m, uniq);
            if (at < 0) {
                at = after + 1;
                while (at < m->nmetrics && !in_file(m, in, m->metrics[at].uniq))
                    at++;
                memmove(&m->metrics[at + 1], &m->metrics[at],
                        (size_t)(m->nmetrics - at) * sizeof *m->metrics);
                m->metrics[at] = m->seen[seen_index(m, uniq)];
                m->nmetrics++;
            }
            after = at;
        }
    }
    return 0;
}

/* The remapping spec (report/profile/remapping_spec.h) of the first input
 * that has one, kept to be copied as it is. */
static int keep_spec(merge *m, const cube_profile *p)
{
    size_t len;
    const unsigned char *spec = m->spec ? NULL : cube_member(p, REMAPPING_MEMBER, &len);
    if (!spec)
        return 0;
    if (!(m->spec = malloc(len + 1)))
        return fail(m, "out of memory");
    memcpy(m->spec, spec, len);
    m->spec_len = len;
    return 0;
}

/* Reads input i's definitions: everything but its values. */
static int survey_one(merge *m, int i)
{
    char err[512];
    input *in = &m->in[i];
    cube_profile *p = cube_open(in->path, err, sizeof err);
    if (!p)
        return fail(m, "%s: %s", in->path, err);
    in->nlocs = p->nlocs, in->ncnodes = p->ncnodes;
    if (!m->d) { /* the call tree's shape is the run's: the first input's */
        const char *cs = cube_attr_get(p, "hprof::callsites");
        m->d = defs_new(cs && strcmp(cs, "merge") == 0);
    }
    int *cnode_map = calloc((size_t)p->ncnodes + 1, sizeof *cnode_map);
    int rc = m->d ? check_input(m, in->path, p) : fail(m, "out of memory");
    if (rc == 0)
        rc = same_run(m, i, p);
    if (rc == 0)
        rc = callsites_agree(m, i, p);
    if (rc == 0)
        rc = cnode_map ? unify(m, p, cnode_map) : fail(m, "out of memory");
    if (rc == 0)
        rc = take_processes(m, i, p);
    if (rc == 0)
        rc = take_metrics(m, i, p);
    if (rc == 0 && merged_attrs_add(&m->attrs, p) != 0)
        rc = fail(m, "out of memory");
    if (rc == 0)
        rc = keep_spec(m, p);
    free(cnode_map);
    cube_close(p);
    return rc;
}

static int survey(merge *m)
{
    for (int f = 0; f < M_COUNT; f++)
        m->fixed_seen[f] = -1;
    for (int i = 0; i < m->nin; i++)
        if (survey_one(m, i) != 0)
            return -1;
    return 0;
}

/* ---- values ---- */

/* Where one input's values go: its cnodes and locations in the merged
 * profile, and the group of metrics being gathered. */
typedef struct row_ctx {
    const merge *m;
    const int *cnode_map, *loc_col;
    int nlocs;
    double *out; /* [merged cnode][merged location] of one metric */
    int aggr;
} row_ctx;

static void take_row(void *ctx, int cnode, const double *row)
{
    row_ctx *r = ctx;
    size_t base = (size_t)r->cnode_map[cnode] * (size_t)r->m->nlocs;
    for (int l = 0; l < r->nlocs; l++) {
        double *v = &r->out[base + (size_t)r->loc_col[l]];
        *v = value_combine(r->aggr, *v, row[l]);
    }
}

/* The merged location of each of p's. */
static void locate(const merge *m, const input *in, const cube_profile *p, int *loc_col)
{
    for (int l = 0; l < p->nlocs; l++) {
        const out_proc *o = &m->procs[m->proc_slot[in->first_proc + p->locs[l].process]];
        loc_col[l] = o->first_loc + (p->locs[l].thread >= 0 ? p->locs[l].thread : 0);
    }
}

/* Input i opened again for its values, its cnodes' merged ones in
 * *cnode_map (to free); NULL with the reason in msg. */
static cube_profile *reopen(merge *m, int i, int **cnode_map)
{
    char err[512];
    input *in = &m->in[i];
    cube_profile *p = cube_open(in->path, err, sizeof err);
    *cnode_map = NULL;
    if (!p) {
        fail(m, "%s: %s", in->path, err);
        return NULL;
    }
    int ncnodes = m->d->ncnodes, rc = 0;
    if (p->nlocs != in->nlocs || p->ncnodes != in->ncnodes || p->nprocs != in->nprocs)
        rc = fail(m, "%s: the file changed while it was merged", in->path);
    *cnode_map = calloc((size_t)p->ncnodes + 1, sizeof **cnode_map);
    if (rc == 0 && !*cnode_map)
        rc = fail(m, "out of memory");
    if (rc == 0)
        rc = unify(m, p, *cnode_map);
    if (rc == 0 && m->d->ncnodes != ncnodes)
        rc = fail(m, "%s: the file changed while it was merged", in->path);
    if (rc != 0) {
        free(*cnode_map);
        *cnode_map = NULL;
        cube_close(p);
        return NULL;
    }
    return p;
}

/* Adds input i's values of metrics [k0, k1) to out (one block of cnodes x
 * locations a metric). */
static int gather_one(merge *m, int i, int k0, int k1, double *out)
{
    char err[512];
    input *in = &m->in[i];
    int *cnode_map;
    cube_profile *p = reopen(m, i, &cnode_map);
    if (!p)
        return -1;
    int ncnodes = m->d->ncnodes, rc = 0;
    int *loc_col = calloc((size_t)p->nlocs + 1, sizeof *loc_col);
    if (!loc_col)
        rc = fail(m, "out of memory");
    if (rc == 0)
        locate(m, in, p, loc_col);
    size_t block = (size_t)ncnodes * (size_t)m->nlocs;
    for (int k = k0; rc == 0 && k < k1; k++) {
        int at = cube_find_metric(p, defs_str(m->d, m->metrics[k].uniq));
        if (at < 0)
            continue; /* 0 on this file's ranks */
        row_ctx ctx = {
            m, cnode_map, loc_col, p->nlocs, out + (size_t)(k - k0) * block, p->metrics[at].aggr
        };
        if (cube_scan_metric(p, at, take_row, &ctx, err, sizeof err) != 0)
            rc = fail(m, "%s: %s", in->path, err);
    }
    free(cnode_map), free(loc_col);
    cube_close(p);
    return rc;
}

static int write_metric(merge *m, cube_writer *w, int k, const double *out)
{
    if (cube_writer_metric_begin(w, k) != 0)
        return -1;
    for (int row = 0; row < m->d->ncnodes; row++) {
        int c = cube_writer_row_cnode(w, k, row);
        if (c < 0 || cube_writer_metric_row(w, c, out + (size_t)c * (size_t)m->nlocs) != 0)
            return -1;
    }
    return cube_writer_metric_end(w);
}

/* Every metric's values, as many metrics at a time as VALUES_BUDGET
 * holds (at least one), each group one pass over the inputs. */
static int write_values(merge *m, cube_writer *w, double *out, int group)
{
    size_t block = (size_t)m->d->ncnodes * (size_t)m->nlocs;
    for (int k0 = 0; k0 < m->nmetrics; k0 += group) {
        int k1 = k0 + group < m->nmetrics ? k0 + group : m->nmetrics;
        memset(out, 0, (size_t)(k1 - k0) * block * sizeof *out);
        for (int i = 0; i < m->nin; i++)
            if (gather_one(m, i, k0, k1, out) != 0)
                return -1;
        for (int k = k0; k < k1; k++)
            if (write_metric(m, w, k, out + (size_t)(k - k0) * block) != 0)
                return -1;
    }
    return 0;
}

/* ---- reduced locations ---- */

/* The key ranks: a pass over the inputs' times. */
static int find_keys(merge *m, reduced_keys *k)
{
    char err[512];
    memset(k, 0, sizeof *k);
    for (int i = 0; i < m->nin; i++) {
        cube_profile *p = cube_open(m->in[i].path, err, sizeof err);
        if (!p || reduced_keys_take(k, p, err, sizeof err) != 0) {
            cube_close(p);
            return fail(m, "%s: %s", m->in[i].path, err);
        }
        cube_close(p);
    }
    return 0;
}

/* Every input's ranks folded into f: a pass over the inputs. */
static int fold_values(merge *m, reduced_fold *f)
{
    char err[512];
    for (int i = 0; i < m->nin; i++) {
        int *cnode_map;
        cube_profile *p = reopen(m, i, &cnode_map);
        if (!p)
            return -1;
        int rc = reduced_fold_take(f, p, cnode_map, err, sizeof err);
        free(cnode_map);
        cube_close(p);
        if (rc != 0)
            return fail(m, "%s: %s", m->in[i].path, err);
    }
    return 0;
}

/* The reduced file's values: the folds of every metric at once (metrics x
 * call paths x 64 bytes), written as MPI_Finalize's merge writes them. */
static int write_reduced(merge *m, cube_writer *w, const reduced_keys *keys)
{
    const char **uniq = calloc((size_t)m->nmetrics + 1, sizeof *uniq);
    const char **dtypes = calloc((size_t)m->nmetrics + 1, sizeof *dtypes);
    reduced_fold *f = NULL;
    int rc = -1;
    if (uniq && dtypes) {
        for (int k = 0; k < m->nmetrics; k++)
            uniq[k] = defs_str(m->d, m->metrics[k].uniq), dtypes[k] = defs_str(m->d, m->metrics[k].dtype);
        f = reduced_fold_new(m->nmetrics, uniq, dtypes, m->d->ncnodes, keys);
    }
    if (!f)
        rc = fail(m, "out of memory");
    else if (fold_values(m, f) == 0)
        rc = reduced_fold_write(f, w, m->nprocs);
    reduced_fold_free(f);
    free(uniq), free(dtypes);
    return rc;
}

/* ---- the file ---- */

/* A reduced file's six processes on one node (locations_file.h). */
typedef struct reduced_shape {
    char names[LOC_COUNT][64];
    cube_process_def procs[LOC_COUNT];
} reduced_shape;

static const char *const reduced_node[] = { LOCATIONS_NODE };

/* from's n strings and one more (NULL out of memory). */
static const char **appended(const char *const *from, int n, const char *last)
{
    const char **v = malloc(((size_t)n + 1) * sizeof *v);
    if (v) {
        memcpy(v, from, (size_t)n * sizeof *v);
        v[n] = last;
    }
    return v;
}

static int define(merge *m, cube_writer *w, const reduced_shape *rs)
{
    const defs *d = m->d;
    cube_metric_def *md = calloc((size_t)m->nmetrics + 1, sizeof *md);
    cube_region_def *rd = calloc((size_t)d->nregions + 1, sizeof *rd);
    cube_cnode_def *cd = calloc((size_t)d->ncnodes + 1, sizeof *cd);
    cube_process_def *pd = calloc((size_t)m->nprocs + 1, sizeof *pd);
    int *ranks = calloc((size_t)m->nprocs + 1, sizeof *ranks);
    for (int j = 0; ranks && j < m->nprocs; j++)
        ranks[j] = m->procs[j].rank;
    int rc = -1;
    merged_attrs *a = &m->attrs;
    if (md && rd && cd && pd && ranks && merged_attrs_make(a, ranks, m->nprocs) == 0) {
        for (int k = 0; k < a->n; k++)
            if (strcmp(a->keys[k], "hprof::missing_ranks") == 0)
                snprintf(m->missing, sizeof m->missing, "%s", a->values[k]);
        for (int k = 0; k < m->nmetrics; k++) {
            const metric_copy *mt = &m->metrics[k];
            md[k] = (cube_metric_def){ defs_str(d, mt->uniq),
                                       defs_str(d, mt->disp),
                                       defs_str(d, mt->dtype),
                                       defs_str(d, mt->uom),
                                       defs_str(d, mt->descr),
                                       0,
                                       -1 };
        }
        for (int k = 0; k < d->nregions; k++) {
            const region_copy *r = &m->region_src[k];
            rd[k] = (cube_region_def){ defs_str(d, r->name),
                                       defs_str(d, r->mangled),
                                       defs_str(d, r->module),
                                       defs_str(d, r->file),
                                       r->begin,
                                       r->end,
                                       defs_str(d, r->paradigm),
                                       defs_str(d, r->role),
                                       defs_str(d, r->descr) };
        }
        for (int k = 0; k < d->ncnodes; k++) {
            const def_cnode *c = &d->cnodes[k];
            cd[k] = (cube_cnode_def){ c->parent, c->region, defs_str(d, c->cs_file), c->cs_line };
        }
        for (int j = 0; j < m->nprocs; j++)
            pd[j] = (cube_process_def){ m->procs[j].rank, m->procs[j].node, m->procs[j].nthreads,
                                        m->procs[j].thread_names, NULL };
        cube_defs defs = { md,       m->nmetrics, rd, d->nregions, cd,      d->ncnodes, "machine",
                           m->nodes, m->nnodes,   pd, m->nprocs,   a->keys, a->values,  a->n };
        const char **keys = NULL, **values = NULL;
        if (rs) {
            keys = appended((const char *const *)a->keys, a->n, LOCATIONS_ATTR);
            values = appended((const char *const *)a->values, a->n, "reduced");
            defs.nodes = reduced_node, defs.nnodes = 1;
            defs.procs = rs->procs, defs.nprocs = LOC_COUNT;
            defs.attr_keys = keys, defs.attr_values = values, defs.nattrs = a->n + 1;
        }
        rc = rs && (!keys || !values) ? -1 : cube_writer_define(w, &defs);
        free(keys), free(values);
    }
    free(md), free(rd), free(cd), free(pd), free(ranks);
    return rc;
}

/* Every rank's values: as many metrics a pass as VALUES_BUDGET holds. */
static int write_every_rank(merge *m, cube_writer *w)
{
    size_t n = (size_t)m->d->ncnodes * (size_t)m->nlocs;
    if (n > MAX_VALUES)
        return fail(m, "too many call paths times locations to hold one metric in memory");
    int group = n ? (int)(VALUES_BUDGET / n) : m->nmetrics;
    group = group < 1 ? 1 : group > m->nmetrics ? m->nmetrics : group;
    double *out = malloc(((size_t)group * n + 1) * sizeof *out);
    if (!out)
        return fail(m, "out of memory");
    int rc = write_values(m, w, out, group);
    free(out);
    return rc;
}

static int write_file(merge *m, const offline_merge_opts *o)
{
    char err[512] = "";
    int reduced = locations_wanted(o->locations, m->nprocs);
    reduced_keys keys;
    reduced_shape rs;
    if (reduced && find_keys(m, &keys) != 0)
        return -1;
    if (reduced)
        locations_processes(m->nprocs, keys.rank, rs.names, rs.procs);
    cube_writer *w = cube_writer_create(o->output, o->overwrite_ok, err, sizeof err);
    if (!w)
        return fail(m, "%s", err);
    int rc = cube_writer_set_compress(w, o->compress);
    if (rc == 0)
        rc = define(m, w, reduced ? &rs : NULL);
    if (rc == 0)
        rc = reduced ? write_reduced(m, w, &keys) : write_every_rank(m, w);
    if (rc == 0 && m->spec)
        rc = cube_writer_add_member(w, REMAPPING_MEMBER, m->spec, m->spec_len);
    if (rc != 0) {
        /* a reason of the inputs' is in msg already; else the writer's */
        if (!m->msg[0])
            snprintf(m->msg, m->msglen, "%s: %s", o->output, err[0] ? err : "writing failed");
        cube_writer_abort(w);
        return -1;
    }
    if (cube_writer_commit(w, err, sizeof err) != 0)
        return fail(m, "%s", err);
    snprintf(m->msg, m->msglen, "wrote %s (%d ranks from %d profiles, %d call paths, %d metrics%s%s%s)",
             o->output, m->nprocs, m->nin, m->d->ncnodes, m->nmetrics,
             m->missing[0] ? "; missing ranks: " : "", m->missing,
             reduced ? "; reduced: per call path the sum, min and max over the ranks and the rows of 3 key"
                       " ranks, --locations all keeps every rank"
                     : "");
    return 0;
}

static void merge_free(merge *m)
{
    for (int j = 0; m->procs && j < m->nprocs; j++)
        free(m->procs[j].thread_names);
    free(m->in), free(m->procs), free(m->proc_slot), free(m->node_of_string), free(m->nodes);
    free(m->metric_names), free(m->metrics), free(m->region_src), free(m->spec);
    merged_attrs_free(&m->attrs);
    if (m->d)
        defs_free(m->d);
}

int offline_merge(const char *const *inputs, int ninputs, const offline_merge_opts *opts, char *msg,
                  size_t msglen)
{
    merge m = { 0 };
    m.msg = msg, m.msglen = msglen, m.nin = ninputs;
    msg[0] = '\0';
    if (ninputs < 1)
        return fail(&m, "no profile to merge");
    m.in = calloc((size_t)ninputs, sizeof *m.in);
    int rc = !m.in ? fail(&m, "out of memory") : 0;
    for (int i = 0; rc == 0 && i < ninputs; i++)
        m.in[i].path = inputs[i];
    if (rc == 0)
        rc = survey(&m);
    if (rc == 0)
        rc = place_processes(&m);
    if (rc == 0)
        rc = union_metrics(&m);
    if (rc == 0)
        rc = write_file(&m, opts);
    merge_free(&m);
    return rc;
}
