#include "tools/hprof-merge/reduced_fold.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/profile/locations_file.h"
#include "tools/hprof-merge/value_combine.h"

struct reduced_fold {
    int nmetrics, ncnodes;
    const char *const *uniq, *const *dtypes;
    locations_metric *metrics;
    long long key[LOCATIONS_NKEYS];
    double *acc;  /* [metric][merged cnode][FOLD_LEN] */
    double *vals; /* one input's metric: [merged cnode][its location] */
    size_t nvals;
};

/* ---- the key ranks ---------------------------------------------------------- */

typedef struct time_ctx {
    const cube_profile *p;
    double *t; /* per process of p */
} time_ctx;

static void add_time(void *ctx, int cnode, const double *row)
{
    time_ctx *c = ctx;
    (void)cnode;
    for (int l = 0; l < c->p->nlocs; l++)
        c->t[c->p->locs[l].process] += row[l];
}

int reduced_keys_take(reduced_keys *k, cube_profile *p, char *err, size_t errlen)
{
    double *t = calloc((size_t)p->nprocs + 1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    time_ctx c = { p, t };
    int at = cube_find_metric(p, "time");
    int rc = at >= 0 ? cube_scan_metric(p, at, add_time, &c, err, errlen) : 0;
    for (int j = 0; rc == 0 && j < p->nprocs; j++) {
        long long r = p->procs[j].rank;
        if (!k->any || r < k->rank[0])
            k->rank[0] = r;
        if (!k->any || t[j] < k->least || (t[j] == k->least && r < k->rank[1]))
            k->least = t[j], k->rank[1] = r;
        if (!k->any || t[j] > k->most || (t[j] == k->most && r < k->rank[2]))
            k->most = t[j], k->rank[2] = r;
        k->any = 1;
    }
    free(t);
    return rc;
}

/* ---- the fold ------------------------------------------------------------------ */

reduced_fold *reduced_fold_new(int nmetrics, const char *const *uniq, const char *const *dtypes, int ncnodes,
                               const reduced_keys *keys)
{
    reduced_fold *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    *f = (reduced_fold){ nmetrics, ncnodes, uniq, dtypes, NULL, { 0 }, NULL, NULL, 0 };
    memcpy(f->key, keys->rank, sizeof f->key);
    size_t n = (size_t)nmetrics * (size_t)ncnodes;
    f->metrics = calloc((size_t)nmetrics + 1, sizeof *f->metrics);
    f->acc = malloc((n + 1) * FOLD_LEN * sizeof *f->acc);
    if (!f->metrics || !f->acc) {
        reduced_fold_free(f);
        return NULL;
    }
    for (int m = 0; m < nmetrics; m++)
        f->metrics[m] = locations_metric_of(dtypes[m]);
    for (size_t i = 0; i < n; i++) { /* the fold's identity */
        double *e = f->acc + i * FOLD_LEN;
        e[FOLD_SUM] = 0, e[FOLD_MIN] = INFINITY, e[FOLD_MAX] = -INFINITY;
        e[FOLD_ARGMIN] = e[FOLD_ARGMAX] = LOCATIONS_NO_RANK;
        for (int q = 0; q < LOCATIONS_NKEYS; q++)
            e[FOLD_KEY + q] = 0;
    }
    return f;
}

typedef struct row_ctx {
    const cube_profile *p;
    const int *cnode_map;
    double *vals;
    int aggr;
} row_ctx;

static void take_row(void *ctx, int cnode, const double *row)
{
    row_ctx *c = ctx;
    double *v = c->vals + (size_t)c->cnode_map[cnode] * (size_t)c->p->nlocs;
    for (int l = 0; l < c->p->nlocs; l++)
        v[l] = value_combine(c->aggr, v[l], row[l]);
}

/* Process j's threads at every merged cnode, folded into metric m's rows. */
static void fold_process(reduced_fold *f, const cube_profile *p, int m, int j)
{
    locations_metric mi = f->metrics[m];
    long long r = p->procs[j].rank;
    double e[FOLD_LEN];
    for (int c = 0; c < f->ncnodes; c++) {
        const double *v = f->vals + (size_t)c * (size_t)p->nlocs;
        double x = 0;
        int has = 0;
        for (int l = 0; l < p->nlocs; l++)
            if (p->locs[l].process == j && (mi.kind == LOCATIONS_SUMS || v[l] != 0))
                locations_take_thread(&x, &has, mi.kind, v[l]);
        locations_element(e, x, has, mi, r, 1, r, f->key);
        locations_fold(f->acc + ((size_t)m * f->ncnodes + c) * FOLD_LEN, e);
    }
}

int reduced_fold_take(reduced_fold *f, cube_profile *p, const int *cnode_map, char *err, size_t errlen)
{
    size_t n = (size_t)f->ncnodes * (size_t)p->nlocs;
    if (n > f->nvals) {
        double *v = realloc(f->vals, n * sizeof *v);
        if (!v) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        f->vals = v, f->nvals = n;
    }
    for (int m = 0; m < f->nmetrics; m++) {
        memset(f->vals, 0, n * sizeof *f->vals);
        int at = cube_find_metric(p, f->uniq[m]);
        row_ctx c = { p, cnode_map, f->vals, at >= 0 ? p->metrics[at].aggr : 0 };
        if (at >= 0 && cube_scan_metric(p, at, take_row, &c, err, errlen) != 0)
            return -1;
        for (int j = 0; j < p->nprocs; j++)
            fold_process(f, p, m, j);
    }
    return 0;
}

/* ---- the file ---------------------------------------------------------------------- */

/* Metric m's rows in the writer's row order (the file's cnode ids: the
 * call tree in preorder), LOCATIONS_CHUNK at a time. */
static void write_metric(reduced_fold *f, locations_out *o, cube_writer *w, int m, double *chunk)
{
    const double *acc = f->acc + (size_t)m * f->ncnodes * FOLD_LEN;
    for (int row0 = 0; row0 < f->ncnodes; row0 += LOCATIONS_CHUNK) {
        int n = f->ncnodes - row0 < LOCATIONS_CHUNK ? f->ncnodes - row0 : LOCATIONS_CHUNK;
        for (int i = 0; i < n; i++) {
            int c = cube_writer_row_cnode(w, m, row0 + i);
            memcpy(chunk + (size_t)i * FOLD_LEN, acc + (size_t)(c < 0 ? 0 : c) * FOLD_LEN,
                   FOLD_LEN * sizeof *chunk);
        }
        locations_out_chunk(o, (long long)m * f->ncnodes + row0, n, chunk);
    }
}

int reduced_fold_write(reduced_fold *f, cube_writer *w, long long nranks)
{
    locations_out o;
    double *chunk = malloc((size_t)LOCATIONS_CHUNK * FOLD_LEN * sizeof *chunk);
    int rc = chunk ? locations_out_open(&o, w, f->nmetrics, f->dtypes, f->ncnodes, nranks) : -1;
    for (int m = 0; rc == 0 && m < f->nmetrics; m++)
        write_metric(f, &o, w, m, chunk);
    if (chunk)
        rc = locations_out_close(&o) == 0 && rc == 0 ? 0 : -1;
    free(chunk);
    return rc;
}

void reduced_fold_free(reduced_fold *f)
{
    if (!f)
        return;
    free(f->metrics), free(f->acc), free(f->vals);
    free(f);
}
