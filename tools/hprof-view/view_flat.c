/*
 * view_flat.c - flat profile by region, like gprof's: the metric's
 * exclusive (self) value summed over every call path of a region, its
 * inclusive (total) value counted once per outermost call path (recursion
 * is not counted twice), calls (visits), per call averages.
 */
#include "vtree.h"

#include <stdlib.h>
#include <string.h>

typedef struct flat_row { int group; double self, total, calls; } flat_row;

static const cube_profile *sort_p;

static int by_name(const void *a, const void *b)
{
    const cube_region *x = &sort_p->regions[*(const int *)a], *y = &sort_p->regions[*(const int *)b];
    return strcmp(x->name ? x->name : "", y->name ? y->name : "");
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

/* Regions with the same name form one group; group[r] is its number. */
static int group_regions(const cube_profile *p, int *group, int *first_region)
{
    int n = p->nregions, ng = 0;
    int *order = malloc(sizeof *order * (size_t)(n + 1));
    if (!order)
        return -1;
    for (int i = 0; i < n; i++)
        order[i] = i;
    sort_p = p;
    qsort(order, (size_t)n, sizeof *order, by_name);
    for (int i = 0; i < n; i++) {
        if (i == 0 || by_name(&order[i - 1], &order[i]) != 0)
            first_region[ng++] = order[i];
        group[order[i]] = ng - 1;
    }
    free(order);
    return ng;
}

int view_flat(cube_profile *p, const view_opts *o, FILE *out)
{
    vtree t;
    int rc = vt_build(&t, p, o), m = view_main_metric(p, o), visits = view_metric(p, "visits");
    int *group = malloc(sizeof *group * (size_t)(p->nregions + 1));
    int *first = malloc(sizeof *first * (size_t)(p->nregions + 1));
    flat_row *rows = calloc((size_t)p->nregions + 1, sizeof *rows);
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
    int ng = rc == 0 ? group_regions(p, group, first) : 0;
    if (ng < 0)
        rc = VIEW_FAILED;
    if (rc == 0) {
        for (int g = 0; g < ng; g++)
            rows[g].group = g;
        double total = 0;
        for (int v = 0; v < t.nv; v++) {
            if (!t.v[v].in_focus || t.v[v].region < 0)
                continue;
            int g = group[t.v[v].region], outer = 1;
            for (int a = t.v[v].parent; a >= 0 && outer; a = t.v[a].parent)
                if (t.v[a].region >= 0 && group[t.v[a].region] == g && t.v[a].in_focus)
                    outer = 0;
            rows[g].self += t.vm[m].excl[v];
            total += t.vm[m].excl[v];
            if (outer)
                rows[g].total += t.vm[m].incl[v];
            if (visits >= 0)
                rows[g].calls += t.vm[visits].excl[v];
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
            char a[32], b[32], c[32], d[32], e[32];
            fprintf(out, "%6.2f%% %12s %12s %12s %10.0f %12s %12s  %s%s%s\n", view_share(r->self, total),
                    view_fmt(a, sizeof a, mt, cum), view_fmt(b, sizeof b, mt, r->self),
                    view_fmt(c, sizeof c, mt, r->total), r->calls,
                    r->calls > 0 ? view_fmt(d, sizeof d, mt, r->self / r->calls) : "-",
                    r->calls > 0 ? view_fmt(e, sizeof e, mt, r->total / r->calls) : "-",
                    view_region_is_mpi(p, first[r->group]) ? view_c(o, C_MAGENTA) : "",
                    p->regions[first[r->group]].name ? p->regions[first[r->group]].name : "?",
                    view_c(o, C_RESET));
        }
        if (visits < 0)
            fprintf(out, "(the profile has no visits metric: calls are 0)\n");
    }
    free(group), free(first), free(rows);
    vt_free(&t);
    return rc;
}
