/*
 * view_diff.c - two profiles compared call path by call path. Paths are
 * matched by their region names from the root (not by ids, which differ
 * between runs); paths with the same names are summed. The trees are
 * merged node by node, so time and memory stay linear in the call paths. Rows are sorted by
 * the absolute change of the exclusive value (where the time moved), with
 * the inclusive change beside it.
 */
#include "tools/hprof-view/vtree.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The two call trees merged by names: a row is a call path keyed by its
 * caller's row and its region name, so matching costs one hash lookup per
 * call path however deep the trees are (never a path string per node). */
typedef struct drow {
    const char *name;        /* as printed (vnames.h) */
    uint64_t hash;           /* of the whole name */
    int parent, depth, head; /* head: ancestor row at depth min(depth, VT_PATH_HEAD - 1) */
    double ex[2], in[2];
    int present[2];
} drow;

typedef struct merged {
    drow *rows;
    int n;
    int *table; /* row indexes, -1 empty */
    size_t hsize;
} merged;

/* The row of (parent, name), created if new. Names match by the hash of
 * the whole name and the printed form (bounded): a long name is never
 * compared once per call path. */
static int row_of(merged *g, int parent, const char *name, uint64_t hash)
{
    uint64_t k = (hash ^ (uint32_t)parent) * 1099511628211ull;
    size_t h = (size_t)(k ^ (k >> 29)) & (g->hsize - 1);
    for (; g->table[h] >= 0; h = (h + 1) & (g->hsize - 1)) {
        drow *r = &g->rows[g->table[h]];
        if (r->parent == parent && r->hash == hash && strcmp(r->name, name) == 0)
            return g->table[h];
    }
    drow *r = &g->rows[g->n];
    memset(r, 0, sizeof *r);
    r->name = name;
    r->hash = hash;
    r->parent = parent;
    r->depth = parent >= 0 ? g->rows[parent].depth + 1 : 0;
    r->head = r->depth < VT_PATH_HEAD ? g->n : g->rows[parent].head;
    g->table[h] = g->n;
    return g->n++;
}

/* Adds the vnodes of t (parents come first) as side s; in-focus ones
 * carry values. */
static int collect(merged *g, vtree *t, int m, int s)
{
    int *row = malloc(sizeof *row * ((size_t)t->nv + 1));
    if (!row)
        return VIEW_FAILED;
    for (int v = 0; v < t->nv; v++) {
        int par = t->v[v].parent;
        int reg = t->v[v].region;
        drow *r = &g->rows[row[v] = row_of(g, par >= 0 ? row[par] : -1, vt_name(t, v),
                                           reg >= 0 ? t->names.hash[reg] : 0)];
        if (!t->v[v].in_focus)
            continue;
        r->ex[s] += t->vm[m].excl[v];
        r->in[s] += t->vm[m].incl[v];
        r->present[s] = 1;
    }
    free(row);
    return 0;
}

/* Prints the row's path from the root, cut in the middle past
 * VT_PATH_FRAMES frames as vt_path does. */
static void print_path(FILE *out, const merged *g, int k)
{
    int frames[VT_PATH_FRAMES], n = 0, d = g->rows[k].depth;
    long cut = 0;
    if (d < VT_PATH_HEAD + VT_PATH_TAIL) {
        for (int a = k; a >= 0; a = g->rows[a].parent)
            frames[d - n++] = a;
    } else {
        for (int a = g->rows[k].head, i = VT_PATH_HEAD - 1; a >= 0; a = g->rows[a].parent)
            frames[i--] = a;
        frames[VT_PATH_HEAD] = -1;
        for (int a = k, i = VT_PATH_FRAMES - 1; i > VT_PATH_HEAD; a = g->rows[a].parent)
            frames[i--] = a;
        n = VT_PATH_FRAMES;
        cut = (long)d + 1 - VT_PATH_HEAD - VT_PATH_TAIL;
    }
    char marker[64];
    for (int i = 0; i < n; i++)
        fprintf(out, "%s%s", i ? ";" : "",
                frames[i] < 0 ? vt_cut_marker(marker, sizeof marker, cut) : g->rows[frames[i]].name);
}

static const drow *sort_rows;

/* Largest change of the exclusive value first, then of the inclusive one,
 * then in the order the paths were met. */
static int by_change(const void *a, const void *b)
{
    const drow *x = &sort_rows[*(const int *)a], *y = &sort_rows[*(const int *)b];
    double dx = fabs(x->ex[1] - x->ex[0]), dy = fabs(y->ex[1] - y->ex[0]);
    if (dx != dy)
        return dx < dy ? 1 : -1;
    double ix = fabs(x->in[1] - x->in[0]), iy = fabs(y->in[1] - y->in[0]);
    if (ix != iy)
        return ix < iy ? 1 : -1;
    return *(const int *)a - *(const int *)b;
}

static void print_change(FILE *out, const view_opts *o, double a, double b, int present_a, int present_b)
{
    double d = b - a;
    const char *c = d > 0 ? C_RED : d < 0 ? C_GREEN : NULL;
    fprintf(out, "%s%+13.6f%s ", c ? view_c(o, c) : "", d, c ? view_c(o, C_RESET) : "");
    if (!present_a)
        fprintf(out, "%8s ", "new");
    else if (!present_b)
        fprintf(out, "%8s ", "gone");
    else if (a != 0)
        fprintf(out, "%+7.1f%% ", 100 * d / fabs(a));
    else
        fprintf(out, "%8s ", d ? "inf" : "0");
}

int view_diff(cube_profile *p, const view_opts *o, FILE *out)
{
    vtree ta, tb;
    int m = view_main_metric(p, o), mb = -1;
    int rc = vt_build(&ta, p, o), rcb = vt_build(&tb, o->pb, o);
    merged g = { 0 };
    int *order = NULL;
    if (rc == 0 && rcb != 0) {
        if (rcb == VIEW_BAD_USAGE) { /* say which file */
            char tmp[512];
            snprintf(tmp, sizeof tmp, "%s", o->err);
            snprintf(o->err, o->errlen, "@%s", tmp);
        }
        rc = rcb;
    }
    if (rc == 0 && m < 0) {
        snprintf(o->err, o->errlen, "no metric to compare");
        rc = VIEW_BAD_USAGE;
    }
    if (rc == 0 && (mb = view_metric(o->pb, p->metrics[m].uniq_name)) < 0) {
        snprintf(o->err, o->errlen, "@%s: no metric %s to compare", o->path_b, p->metrics[m].uniq_name);
        rc = VIEW_BAD_USAGE;
    }
    if (rc == 0)
        rc = vt_metric(&ta, m);
    if (rc == 0 && (rc = vt_metric(&tb, mb)) == VIEW_BAD_FILE) {
        char tmp[512];
        snprintf(tmp, sizeof tmp, "%s", o->err);
        snprintf(o->err, o->errlen, "@%s", tmp);
    }
    size_t cap = (size_t)ta.nv + (size_t)tb.nv + 1;
    for (g.hsize = 16; rc == 0 && g.hsize < 2 * cap; g.hsize *= 2)
        ;
    if (rc == 0) {
        g.rows = malloc(sizeof *g.rows * cap);
        g.table = malloc(sizeof *g.table * g.hsize);
        order = malloc(sizeof *order * cap);
        if (!g.rows || !g.table || !order)
            rc = VIEW_FAILED;
        else
            memset(g.table, 0xff, sizeof *g.table * g.hsize);
    }
    if (rc == 0)
        rc = collect(&g, &ta, m, 0);
    if (rc == 0)
        rc = collect(&g, &tb, mb, 1);
    if (rc == 0) {
        for (int i = 0; i < g.n; i++)
            order[i] = i;
        sort_rows = g.rows;
        qsort(order, (size_t)g.n, sizeof *order, by_change);
        const cube_metric *mt = &p->metrics[m];
        double a = vt_total(&ta, m), b = vt_total(&tb, mb);
        fprintf(out, "%sdiff of %s%s%s: before %s, after %s\n", view_c(o, C_BOLD), mt->uniq_name,
                o->rank >= 0 ? " (one rank)" : "", view_c(o, C_RESET), o->path, o->path_b);
        fprintf(out, "total: before %.6f, after %.6f, change %+.6f (%+.1f%%)\n", a, b, b - a,
                a != 0 ? 100 * (b - a) / fabs(a) : 0.0);
        fprintf(out, "%13s %13s %13s %8s %13s %13s %13s %8s  %s\n", "excl before", "excl after", "change",
                "rel", "incl before", "incl after", "change", "rel", "call path");
        int shown = 0;
        for (int i = 0; i < g.n && shown < o->top; i++) {
            drow *r = &g.rows[order[i]];
            if (r->ex[0] == r->ex[1] && r->in[0] == r->in[1])
                continue;
            fprintf(out, "%13.6f %13.6f ", r->ex[0], r->ex[1]);
            print_change(out, o, r->ex[0], r->ex[1], r->present[0], r->present[1]);
            fprintf(out, "%13.6f %13.6f ", r->in[0], r->in[1]);
            print_change(out, o, r->in[0], r->in[1], r->present[0], r->present[1]);
            fputc(' ', out);
            print_path(out, &g, order[i]);
            fputc('\n', out);
            shown++;
        }
        if (!shown)
            fprintf(out, "(no call path changed)\n");
    }
    free(g.rows), free(g.table), free(order);
    vt_free(&ta);
    vt_free(&tb);
    return rc;
}
