/*
 * view_flat.c - flat profile by region, like gprof's: the metric's
 * exclusive (self) value summed over every call path of a region, its
 * inclusive (total) value counted once per outermost call path (recursion
 * is not counted twice), calls (visits), per call averages. With --fold a
 * folded library is one row ("[libc.so.6]").
 */
#include "tools/hprof-view/vtree.h"
#include "tools/hprof-view/view_visits.h"

#include <stdlib.h>
#include <string.h>

typedef struct flat_row {
    int group;
    double self, total, calls;
    int lower_bound;
} flat_row;

static const vtree *sort_t;

/* What makes a row: the file's region name, or a folded library's label. */
static const char *row_key(const vtree *t, int v)
{
    return t->v[v].label ? t->v[v].label : vt_full_name(t, v);
}

static int by_name(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return strcmp(row_key(sort_t, x), row_key(sort_t, y));
}

static int by_self(const void *a, const void *b)
{
    const flat_row *x = a, *y = b;
    if (x->self != y->self)
        return x->self < y->self ? 1 : -1;
    if (x->total != y->total)
        return x->total < y->total ? 1 : -1;
    return x->group - y->group;
}

/* View nodes with the same region name (or fold label) form one group;
 * group[v] is its number, first[g] a node of it. */
static int group_nodes(const vtree *t, int *group, int *first)
{
    int n = t->nv, ng = 0;
    int *order = malloc(sizeof *order * (size_t)(n + 1));
    if (!order)
        return -1;
    for (int i = 0; i < n; i++)
        order[i] = i;
    sort_t = t;
    qsort(order, (size_t)n, sizeof *order, by_name);
    for (int i = 0; i < n; i++) {
        if (i == 0 || by_name(&order[i - 1], &order[i]) != 0)
            first[ng++] = order[i];
        group[order[i]] = ng - 1;
    }
    free(order);
    return ng;
}

/* outer[v]: no in-focus caller of v is in v's group, so a recursive
 * region's total counts once. One depth-first walk that counts the groups
 * on the current path: linear however deep the tree. */
static int mark_outer(const vtree *t, const int *group, int ng, char *outer)
{
    int *on_path = calloc((size_t)ng + 1, sizeof *on_path);
    int *stack = malloc(sizeof *stack * (2 * (size_t)t->nv + 1)), sp = 0;
    if (!on_path || !stack) {
        free(on_path), free(stack);
        return -1;
    }
    for (int r = t->nroots - 1; r >= 0; r--)
        stack[sp++] = t->roots[r];
    while (sp > 0) {
        int e = stack[--sp], v = e >= 0 ? e : -1 - e;
        int g = t->v[v].region >= 0 ? group[v] : -1, counts = g >= 0 && t->v[v].in_focus;
        if (e < 0) { /* leaving v */
            if (counts)
                on_path[g]--;
            continue;
        }
        outer[v] = g < 0 || on_path[g] == 0;
        if (counts)
            on_path[g]++;
        stack[sp++] = -1 - v;
        for (int c = t->v[v].first_child; c >= 0; c = t->v[c].next_sibling)
            stack[sp++] = c;
    }
    free(on_path), free(stack);
    return 0;
}

int view_flat(cube_profile *p, const view_opts *o, FILE *out)
{
    vtree t;
    int rc = vt_build(&t, p, o), m = view_main_metric(p, o), visits = view_metric(p, "visits");
    int *group = malloc(sizeof *group * (size_t)(p->ncnodes + 1));
    int *first = malloc(sizeof *first * (size_t)(p->ncnodes + 1));
    flat_row *rows = calloc((size_t)p->ncnodes + 1, sizeof *rows);
    if (rc == 0 && (!group || !first || !rows))
        rc = VIEW_FAILED;
    if (rc == 0 && m < 0) {
        snprintf(o->err, o->errlen, "no metric to show");
        rc = VIEW_BAD_USAGE;
    }
    if (rc == 0)
        rc = vt_metric(&t, m);
    if (rc == 0 && visits >= 0)
        rc = vt_metric(&t, visits);
    double *entries = rc == 0 ? view_entries(&t) : NULL;
    int ng = rc == 0 ? group_nodes(&t, group, first) : 0;
    char *outer = calloc((size_t)t.nv + 1, 1);
    if (ng < 0 || !outer || (rc == 0 && mark_outer(&t, group, ng, outer) < 0))
        rc = VIEW_FAILED;
    if (rc == 0) {
        for (int g = 0; g < ng; g++)
            rows[g].group = g;
        double total = 0;
        for (int v = 0; v < t.nv; v++) {
            if (!t.v[v].in_focus || t.v[v].region < 0)
                continue;
            int g = group[v];
            rows[g].self += t.vm[m].excl[v];
            total += t.vm[m].excl[v];
            if (outer[v])
                rows[g].total += t.vm[m].incl[v];
            if (entries && !t.v[v].is_mpi) { /* a function: entries seen, a lower bound */
                rows[g].calls += entries[v];
                rows[g].lower_bound = 1;
            } else if (visits >= 0) {
                rows[g].calls += t.vm[visits].excl[v];
            }
        }
        qsort(rows, (size_t)ng, sizeof *rows, by_self);
        const cube_metric *mt = &p->metrics[m];
        rc = vt_header(&t, out);
        fprintf(out, "\nflat profile of %s%s%s by region%s%s%s\n", view_c(o, C_BOLD), mt->uniq_name,
                view_c(o, C_RESET), o->focus ? " (under --focus " : "", o->focus ? o->focus : "",
                o->focus ? ")" : "");
        fprintf(out, "%7s %12s %12s %12s %10s %12s %12s  %s\n", "% self", "cumulative", "self", "total",
                "calls", "self/call", "total/call", "name");
        double cum = 0;
        for (int i = 0; i < ng; i++) {
            flat_row *r = &rows[i];
            if (r->self == 0 && r->total == 0 && r->calls == 0)
                continue;
            cum += r->self;
            char a[32], b[32], c[32], d[32], e[32], n[32];
            /* lower-bound calls: ">=N", and the per-call values are upper bounds */
            snprintf(n, sizeof n, r->lower_bound && r->calls > 0 ? ">=%.0f" : "%.0f", r->calls);
            if (r->calls > 0 && r->lower_bound) {
                snprintf(d, sizeof d, "<=%s", view_fmt(a, sizeof a, mt, r->self / r->calls));
                snprintf(e, sizeof e, "<=%s", view_fmt(a, sizeof a, mt, r->total / r->calls));
            } else if (r->calls > 0) {
                view_fmt(d, sizeof d, mt, r->self / r->calls), view_fmt(e, sizeof e, mt, r->total / r->calls);
            }
            fprintf(out, "%6.2f%% %12s %12s %12s %10s %12s %12s  %s%s%s\n", view_share(r->self, total),
                    view_fmt(a, sizeof a, mt, cum), view_fmt(b, sizeof b, mt, r->self),
                    view_fmt(c, sizeof c, mt, r->total), n, r->calls > 0 ? d : "-", r->calls > 0 ? e : "-",
                    t.v[first[r->group]].is_mpi ? view_c(o, C_MAGENTA) : "", vt_name(&t, first[r->group]),
                    view_c(o, C_RESET));
        }
        if (visits < 0)
            fprintf(out, "(the profile has no visits metric: calls are 0)\n");
    }
    free(group), free(first), free(rows), free(entries), free(outer);
    vt_free(&t);
    return rc;
}
