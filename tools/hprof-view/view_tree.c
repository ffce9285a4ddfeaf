/*
 * view_tree.c - the call tree: one line per call path of the view tree,
 * indented by depth, children ordered by the first column's inclusive
 * value (largest first), values combined over the selected locations.
 * Children under --threshold percent of the total are folded into one
 * "more" line; --depth stops descending; with --focus, callers of the
 * focused subtrees are shown dimmed for context.
 *
 * Output stays proportional to the call tree, however deep: indentation
 * stops growing at TREE_INDENT_LEVELS (deeper lines say their depth as
 * "[N] "), and without --depth the tree stops at TREE_MAX_DEPTH levels
 * with one line saying how many call paths were cut.
 */
#include "tools/hprof-view/vtree.h"
#include "tools/hprof-view/view_exact.h"
#include "tools/hprof-view/view_reduced.h"
#include "tools/hprof-view/view_visits.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TREE_INDENT_LEVELS 32
#define TREE_MAX_DEPTH 1000

typedef struct column {
    int metric;
    int inclusive;
    int percent; /* print share of the metric's total instead */
} column;

typedef struct tree_ctx {
    vtree *t;
    const view_opts *o;
    FILE *out;
    column *cols;
    int ncols;
    double *totals;       /* [metric] */
    int key;              /* metric the order and threshold use, -1 none */
    int max_depth;        /* --depth, else TREE_MAX_DEPTH */
    int visits;           /* the visits metric, -1 if absent */
    double *entries;      /* [vnode] function_entries_seen, NULL if absent (view_visits.h) */
    int exact;            /* the exact_time metric, -1 if absent (view_exact.h) */
    view_reduced reduced; /* a reduced file's ranks of min and max (view_reduced.h) */
    int has_reduced;      /* and the sum shown */
    int *folds;           /* [vnode]: the cnodes it folds, where has_reduced */
} tree_ctx;

static int add_metric_cols(column *cols, int n, int m, int with_percent)
{
    cols[n++] = (column){ m, 1, 0 };
    if (with_percent)
        cols[n++] = (column){ m, 1, 1 };
    cols[n++] = (column){ m, 0, 0 };
    return n;
}

/* Default: time incl, %, time excl, then visits and bytes (exclusive,
 * as they are counted at the call path itself). */
static int default_columns(const cube_profile *p, column *cols)
{
    int n = 0, t = view_metric(p, "time");
    if (t >= 0)
        n = add_metric_cols(cols, n, t, 1);
    static const char *const extra[] = { "visits", "bytes_sent", "bytes_received" };
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++) {
        int m = view_metric(p, extra[i]);
        if (m >= 0)
            cols[n++] = (column){ m, 0, 0 };
    }
    for (int m = 0; n == 0 && m < p->nmetrics; m++) /* not an hprof profile */
        if (p->metrics[m].loadable)
            n = add_metric_cols(cols, n, m, 1);
    return n;
}

static int choose_columns(const cube_profile *p, const view_opts *o, column *cols)
{
    if (o->nmetrics == 0)
        return default_columns(p, cols);
    int n = 0;
    for (int i = 0; i < o->nmetrics; i++)
        n = add_metric_cols(cols, n, o->metrics[i], i == 0);
    return n;
}

static void print_header(const tree_ctx *x)
{
    const cube_profile *p = x->t->p;
    for (int i = 0; i < x->ncols; i++) {
        const cube_metric *m = &p->metrics[x->cols[i].metric];
        char h[64];
        if (x->cols[i].percent) {
            fprintf(x->out, "%7s ", "%");
            continue;
        }
        snprintf(h, sizeof h, "%s %.50s", x->cols[i].inclusive ? "incl" : "excl",
                 m->uniq_name ? m->uniq_name : "?");
        fprintf(x->out, "%14s ", h);
    }
    fputs(" call path\n", x->out);
}

static void print_number(FILE *out, const cube_metric *m, double v)
{
    if (m->is_integer)
        fprintf(out, "%14.0f", v);
    else if (m->uom && strcmp(m->uom, "sec") == 0)
        fprintf(out, "%14.6f", v);
    else
        fprintf(out, "%14.6g", v);
}

static void print_cell(const tree_ctx *x, const column *col, int v)
{
    const cube_profile *p = x->t->p;
    const vmetric *vm = &x->t->vm[col->metric];
    double val = col->inclusive ? vm->incl[v] : vm->excl[v];
    char lb[32];
    if (col->metric == x->visits && !col->inclusive && !col->percent && x->entries && !x->t->v[v].is_mpi &&
        val == 0 && view_lower_bound(lb, sizeof lb, x->entries[v])) {
        fprintf(x->out, "%14s ", lb);
        return; /* a function: the entries seen, a lower bound */
    }
    if (col->percent) {
        double s = view_share(val, x->totals[col->metric]);
        const char *c = s >= 10 ? C_RED : s >= 1 ? C_YELLOW : C_DIM;
        fprintf(x->out, "%s%6.1f%%%s", view_c(x->o, c), s, view_c(x->o, C_RESET));
    } else {
        print_number(x->out, &p->metrics[col->metric], val);
    }
    fputc(' ', x->out);
}

/* Two spaces a level up to TREE_INDENT_LEVELS, then the depth as a number:
 * a line never grows with the depth of the tree. */
static void indent(FILE *out, int depth)
{
    int levels = depth < TREE_INDENT_LEVELS ? depth : TREE_INDENT_LEVELS;
    fprintf(out, " %*s", 2 * levels, "");
    if (depth > TREE_INDENT_LEVELS)
        fprintf(out, "[%d] ", depth);
}

/* A reduced file, its sum shown: the key metric's max over the ranks and
 * where it is, for a line that is one call path of the file (a line that
 * folds several has no one rank). */
static void print_max_rank(const tree_ctx *x, int v)
{
    const cube_profile *p = x->t->p;
    int c = x->t->v[v].cnode, lo, hi;
    if (!x->has_reduced || x->key < 0 || c < 0 || x->folds[v] != 1 ||
        !view_reduced_ranks(p, &x->reduced, x->key, c, &lo, &hi) || hi < 0)
        return;
    double max = vt_proc_value(x->t, x->key, v, VIEW_REDUCED_MAX, 0);
    const cube_metric *m = &p->metrics[x->key];
    int secs = m->uom && strcmp(m->uom, "sec") == 0;
    if (max != 0)
        fprintf(x->out, " %s[max %.6g%s at rank %d]%s", view_c(x->o, C_DIM), max, secs ? " s" : "", hi,
                view_c(x->o, C_RESET));
}

static void print_line(const tree_ctx *x, int v, int hidden_children)
{
    const vtree *t = x->t;
    const view_opts *o = x->o;
    int context = !t->v[v].in_focus;
    for (int i = 0; i < x->ncols; i++)
        print_cell(x, &x->cols[i], v);
    const char *nc = context ? C_DIM : t->v[v].is_mpi ? C_MAGENTA : t->v[v].depth == 0 ? C_BOLD : NULL;
    indent(x->out, t->v[v].depth);
    fprintf(x->out, "%s%s%s", nc ? view_c(o, nc) : "", vt_name(t, v), nc ? view_c(o, C_RESET) : "");
    char site[512];
    if (vt_site(t, v, site, sizeof site)[0])
        fprintf(x->out, " %s(%s)%s", view_c(o, C_DIM), site, view_c(o, C_RESET));
    char mark[64];
    if (view_exact_marker(t, x->exact, v, mark, sizeof mark))
        fprintf(x->out, " %s%s%s", view_c(o, C_BOLD), mark, view_c(o, C_RESET));
    print_max_rank(x, v);
    if (hidden_children)
        fprintf(x->out, " %s[+%d below depth %d]%s", view_c(o, C_DIM), hidden_children, x->max_depth,
                view_c(o, C_RESET));
    fputc('\n', x->out);
}

/* The folded children of one node, as one line. */
static void print_more(const tree_ctx *x, int depth, int n, double sum)
{
    for (int i = 0; i < x->ncols; i++) {
        const column *c = &x->cols[i];
        if (c->metric == x->key && c->inclusive && !c->percent)
            print_number(x->out, &x->t->p->metrics[c->metric], sum), fputc(' ', x->out);
        else if (c->metric == x->key && c->percent)
            fprintf(x->out, "%6.1f%% ", view_share(sum, x->totals[c->metric]));
        else
            fprintf(x->out, "%*s ", c->percent ? 7 : 14, "");
    }
    indent(x->out, depth);
    fprintf(x->out, "%s[%d more under %g%%]%s\n", view_c(x->o, C_DIM), n, x->o->threshold,
            view_c(x->o, C_RESET));
}

static int count_visible_children(const vtree *t, int v)
{
    int n = 0;
    for (int c = t->v[v].first_child; c >= 0; c = t->v[c].next_sibling)
        n += t->v[c].visible;
    return n;
}

/* Depth-first with an explicit stack (call trees can be very deep). An
 * entry >= 0 prints a node; -1 - k prints the "more" line recorded at k. */
typedef struct more {
    int depth, n;
    double sum;
} more;

typedef struct walker {
    int *stack, sp;
    int *kids;
    more *mores;
    int nmores;
} walker;

/* Pushes the shown children of v (roots for v < 0), largest on top, and
 * beneath them the line for the folded ones. */
static void push_children(const tree_ctx *x, walker *w, int v)
{
    const vtree *t = x->t;
    const double *key = x->key >= 0 ? t->vm[x->key].incl : NULL;
    double limit = x->key >= 0 ? fabs(x->totals[x->key]) * x->o->threshold / 100.0 : 0;
    int n = vt_sorted_children(t, v, key, w->kids), folded = 0, nshow = 0;
    double fsum = 0;
    for (int i = 0; i < n; i++) {
        int c = w->kids[i];
        if (!t->v[c].visible)
            continue;
        /* a caller of a focused node is never folded */
        if (key && x->o->threshold > 0 && fabs(key[c]) < limit && t->v[c].in_focus) {
            folded++;
            fsum += key[c];
            continue;
        }
        w->kids[nshow++] = c;
    }
    if (folded) {
        w->mores[w->nmores] = (more){ v >= 0 ? t->v[v].depth + 1 : 0, folded, fsum };
        w->stack[w->sp++] = -1 - w->nmores++;
    }
    for (int i = nshow - 1; i >= 0; i--)
        w->stack[w->sp++] = w->kids[i];
}

/* Without --depth: one line for the call paths below TREE_MAX_DEPTH. */
static int print_cut(const tree_ctx *x)
{
    long n = 0;
    for (int v = 0; v < x->t->nv; v++)
        n += x->t->v[v].visible && x->t->v[v].depth > x->max_depth;
    if (n)
        fprintf(x->out, "%s[%ld call paths deeper than %d levels not shown: --depth N shows them]%s\n",
                view_c(x->o, C_DIM), n, x->max_depth, view_c(x->o, C_RESET));
    return 0;
}

static int walk(tree_ctx *x)
{
    vtree *t = x->t;
    const view_opts *o = x->o;
    size_t cap = 2 * (size_t)t->nv + 2;
    walker w = { malloc(sizeof(int) * cap), 0, malloc(sizeof(int) * cap), malloc(sizeof(more) * cap), 0 };
    if (!w.stack || !w.kids || !w.mores) {
        free(w.stack), free(w.kids), free(w.mores);
        return VIEW_FAILED;
    }
    push_children(x, &w, -1);
    while (w.sp > 0) {
        int e = w.stack[--w.sp];
        if (e < 0) {
            const more *m = &w.mores[-1 - e];
            print_more(x, m->depth, m->n, m->sum);
            continue;
        }
        int deep = t->v[e].depth >= x->max_depth;
        print_line(x, e, deep ? count_visible_children(t, e) : 0);
        if (!deep)
            push_children(x, &w, e);
    }
    free(w.stack), free(w.kids), free(w.mores);
    return o->max_depth < 0 ? print_cut(x) : 0;
}

static int *count_folds(const vtree *t)
{
    int *n = calloc((size_t)t->nv + 1, sizeof *n);
    for (int c = 0; n && c < t->p->ncnodes; c++)
        if (t->map[c] >= 0 && t->map[c] < t->nv)
            n[t->map[c]]++;
    return n;
}

int view_tree(cube_profile *p, const view_opts *o, FILE *out)
{
    vtree t;
    tree_ctx x = { &t, o,    out, NULL,  0, NULL, -1, o->max_depth >= 0 ? o->max_depth : TREE_MAX_DEPTH,
                   -1, NULL, -1,  { 0 }, 0, NULL };
    int rc = vt_build(&t, p, o);
    x.cols = malloc(sizeof *x.cols * (size_t)(3 * (p->nmetrics + o->nmetrics) + 4));
    x.totals = calloc((size_t)p->nmetrics + 1, sizeof *x.totals);
    if (rc == 0 && (!x.cols || !x.totals))
        rc = VIEW_FAILED;
    if (rc == 0) {
        x.ncols = choose_columns(p, o, x.cols);
        for (int i = 0; i < x.ncols && rc == 0; i++)
            rc = vt_metric(&t, x.cols[i].metric);
    }
    if (rc == 0) {
        for (int i = 0; i < x.ncols; i++)
            x.totals[x.cols[i].metric] = vt_total(&t, x.cols[i].metric);
        x.key = x.ncols ? x.cols[0].metric : -1;
        x.visits = view_metric(p, "visits");
        x.entries = view_entries(&t);
        x.exact = view_exact_load(&t);
        x.has_reduced = o->rank < 0 && x.key >= 0 && view_reduced_load(p, &x.reduced) &&
                        vt_metric_locs(&t, x.key) == 0 && (x.folds = count_folds(&t)) != NULL;
        rc = vt_header(&t, out);
    }
    if (rc == 0) {
        if (o->focus)
            fprintf(out, "focus: call paths under regions matching '%s' (callers dimmed)\n", o->focus);
        print_header(&x);
        rc = walk(&x);
    }
    vt_free(&t);
    view_reduced_free(&x.reduced);
    free(x.folds);
    free(x.cols), free(x.totals), free(x.entries);
    return rc;
}
