/*
 * view_tree.c - the call tree: one line per cnode, indented by depth,
 * children ordered by the first column's inclusive value (largest first),
 * values combined over all locations. A one-line time split (computation,
 * MPI, unwind problems) heads it when the profile has hprof's metrics.
 */
#include "view.h"

#include <stdlib.h>
#include <string.h>

typedef struct column {
    int metric;
    int inclusive;
    int percent;        /* print share of the metric's total instead */
} column;

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
    int n = 0, t = cube_find_metric(p, "time");
    if (t >= 0 && p->metrics[t].loadable)
        n = add_metric_cols(cols, n, t, 1);
    static const char *const extra[] = { "visits", "bytes_sent", "bytes_received" };
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++) {
        int m = cube_find_metric(p, extra[i]);
        if (m >= 0 && p->metrics[m].loadable)
            cols[n++] = (column){ m, 0, 0 };
    }
    for (int m = 0; n == 0 && m < p->nmetrics; m++)   /* not an hprof profile */
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

static double metric_total(const cube_profile *p, int m)
{
    double t = 0;
    for (int r = 0; r < p->nroots; r++)
        t += cube_value_all_locs(p, m, p->roots[r], 1);
    return t;
}

/* Inclusive value over the whole run of the root regions with this name. */
static double root_named(const cube_profile *p, int m, const char *name)
{
    double t = 0;
    for (int r = 0; r < p->nroots; r++)
        if (strcmp(cube_cnode_name(p, p->roots[r]), name) == 0)
            t += cube_value_all_locs(p, m, p->roots[r], 1);
    return t;
}

static double share(double part, double total)
{
    return total != 0 ? 100.0 * part / total : 0.0;
}

static void print_split(const cube_profile *p, FILE *out)
{
    int t = cube_find_metric(p, "time");
    if (t < 0 || !p->metrics[t].loadable)
        return;
    if (cube_find_metric(p, "comp_time") < 0 && cube_find_metric(p, "mpi_time") < 0)
        return;             /* not an hprof profile: nothing to split */
    double total = metric_total(p, t);
    fprintf(out, "time: total %.4f s", total);
    static const char *const parts[][2] = { { "comp_time", "computation" }, { "mpi_time", "MPI" } };
    for (int i = 0; i < 2; i++) {
        int m = cube_find_metric(p, parts[i][0]);
        if (m < 0 || !p->metrics[m].loadable)
            continue;
        double v = metric_total(p, m);
        fprintf(out, ", %s %.4f s (%.1f%%)", parts[i][1], v, share(v, total));
    }
    static const char *const roots[] = { "(unwind failed)", "(not unwound)" };
    for (int i = 0; i < 2; i++)
        fprintf(out, ", %s %.1f%%", roots[i], share(root_named(p, t, roots[i]), total));
    fputc('\n', out);
}

static void print_header(const cube_profile *p, const column *cols, int ncols, FILE *out)
{
    for (int i = 0; i < ncols; i++) {
        const cube_metric *m = &p->metrics[cols[i].metric];
        char h[64];
        if (cols[i].percent) {
            fprintf(out, "%7s ", "%");
            continue;
        }
        snprintf(h, sizeof h, "%s %.50s", cols[i].inclusive ? "incl" : "excl",
                 m->uniq_name ? m->uniq_name : "?");
        fprintf(out, "%14s ", h);
    }
    fputs(" call path\n", out);
}

static void print_cell(const cube_profile *p, const column *col, const double *totals,
                       int c, FILE *out)
{
    const cube_metric *m = &p->metrics[col->metric];
    double v = cube_value_all_locs(p, col->metric, c, col->inclusive);
    if (col->percent)
        fprintf(out, "%6.1f%%", share(v, totals[col->metric]));
    else if (m->is_integer)
        fprintf(out, "%14.0f", v);
    else if (m->uom && strcmp(m->uom, "sec") == 0)
        fprintf(out, "%14.6f", v);
    else
        fprintf(out, "%14.6g", v);
    fputc(' ', out);
}

static void print_line(const cube_profile *p, const column *cols, int ncols,
                       const double *totals, int c, FILE *out)
{
    for (int i = 0; i < ncols; i++)
        print_cell(p, &cols[i], totals, c, out);
    fprintf(out, " %*s%s", 2 * p->cnodes[c].depth, "", cube_cnode_name(p, c));
    const cube_cnode *n = &p->cnodes[c];
    if (n->mod && n->mod[0] && n->line > 0)
        fprintf(out, " (%s:%ld)", n->mod, n->line);
    else if (n->line > 0)
        fprintf(out, " (line %ld)", n->line);
    fputc('\n', out);
}

typedef struct keyed { double key; int idx; } keyed;

static int by_key_desc(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? 1 : -1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Pushes the nodes (children of parent, or the roots when parent < 0)
 * so that the largest key is popped first. */
static int push_sorted(const cube_profile *p, const column *key, int parent,
                       int *stack, int *sp, keyed *tmp)
{
    int n = 0;
    if (parent < 0)
        for (int r = 0; r < p->nroots; r++)
            tmp[n++].idx = p->roots[r];
    else
        for (int c = p->cnodes[parent].first_child; c >= 0; c = p->cnodes[c].next_sibling)
            tmp[n++].idx = c;
    for (int i = 0; i < n; i++)
        tmp[i].key = key ? cube_value_all_locs(p, key->metric, tmp[i].idx, 1) : 0;
    qsort(tmp, (size_t)n, sizeof *tmp, by_key_desc);
    for (int i = n - 1; i >= 0; i--)
        stack[(*sp)++] = tmp[i].idx;
    return n;
}

/* Loads what the columns and the split line need. */
static int load_needed(cube_profile *p, const view_opts *o, const column *cols, int ncols)
{
    static const char *const split[] = { "time", "comp_time", "mpi_time" };
    for (int i = 0; i < ncols; i++)
        if (view_load(p, o, cols[i].metric) < 0)
            return VIEW_BAD_FILE;
    for (int i = 0; i < 3; i++) {
        int m = cube_find_metric(p, split[i]);
        if (m >= 0 && view_load(p, o, m) < 0)
            return VIEW_BAD_FILE;
    }
    return 0;
}

int view_tree(cube_profile *p, const view_opts *o, FILE *out)
{
    column *cols = malloc(sizeof *cols * (size_t)(3 * (p->nmetrics + o->nmetrics) + 4));
    double *totals = calloc((size_t)p->nmetrics + 1, sizeof *totals);
    int *stack = malloc(sizeof *stack * (size_t)(p->ncnodes + 1));
    keyed *tmp = malloc(sizeof *tmp * (size_t)(p->ncnodes + 1));
    int rc = (cols && totals && stack && tmp) ? 0 : VIEW_FAILED, ncols = 0;
    if (rc == 0) {
        ncols = choose_columns(p, o, cols);
        rc = load_needed(p, o, cols, ncols);
    }
    if (rc == 0) {
        int sp = 0;
        for (int m = 0; m < p->nmetrics; m++)
            totals[m] = metric_total(p, m);
        fprintf(out, "%s: %d processes, %d locations, %d call paths\n", o->path,
                p->nprocs, p->nlocs, p->ncnodes);
        print_split(p, out);
        print_header(p, cols, ncols, out);
        push_sorted(p, ncols ? &cols[0] : NULL, -1, stack, &sp, tmp);
        while (sp > 0) {    /* explicit stack: call trees can be very deep */
            int c = stack[--sp];
            print_line(p, cols, ncols, totals, c, out);
            push_sorted(p, ncols ? &cols[0] : NULL, c, stack, &sp, tmp);
        }
    }
    free(cols), free(totals), free(stack), free(tmp);
    return rc;
}
