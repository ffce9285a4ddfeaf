/* view_html_fold.c - the HTML page's call paths, the rest folded (view_html_fold.h). */
#include "tools/hprof-view/view_html_fold.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct weighed {
    double key;
    int v;
} weighed;

/* Heaviest first; equal weights in tree order, so callers come first. */
static int by_weight(const void *a, const void *b)
{
    const weighed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? 1 : -1;
    return (x->v > y->v) - (x->v < y->v);
}

/* A path's weight: its largest share of a shown metric's total. Minima,
 * maxima and ratios are no parts of a whole: they do not weigh. */
static void weigh(const vtree *t, const int *ml, int nm, weighed *w, int *nw)
{
    double *total = calloc((size_t)nm + 1, sizeof *total);
    for (int k = 0; total && k < nm; k++) {
        const cube_metric *mt = &t->p->metrics[ml[k]];
        for (int r = 0; mt->aggr == CUBE_AGGR_SUM && r < t->nroots; r++)
            total[k] += fabs(t->vm[ml[k]].incl[t->roots[r]]);
    }
    *nw = 0;
    for (int v = 0; v < t->nv; v++) {
        if (!t->v[v].visible)
            continue;
        double key = 0;
        for (int k = 0; total && k < nm; k++)
            if (total[k] > 0 && isfinite(total[k]))
                key = fmax(key, fabs(t->vm[ml[k]].incl[v]) / total[k]);
        w[(*nw)++] = (weighed){ isfinite(key) ? key : 0, v };
    }
    free(total);
}

/* Marks the paths shown in shown[]: all when they fit, else the heaviest
 * with their callers (see the header). Returns how many. */
static int choose(html_nodes *h, const vtree *t, const int *ml, int nm, char *shown)
{
    weighed *w = malloc(sizeof *w * ((size_t)t->nv + 1));
    int nw = 0, kept = 0;
    if (!w)
        return -1;
    weigh(t, ml, nm, w, &nw);
    h->visible = nw;
    if (nw <= h->cap) {
        for (int i = 0; i < nw; i++)
            shown[w[i].v] = 1;
        free(w);
        return nw;
    }
    qsort(w, (size_t)nw, sizeof *w, by_weight);
    int least = h->cap < HTML_ALL_PATHS ? h->cap : HTML_ALL_PATHS;
    for (int i = 0; i < nw && (kept < least || w[i].key >= HTML_MIN_SHARE); i++) {
        int need = 0, a;
        for (a = w[i].v; a >= 0 && !shown[a] && kept + need < h->cap; a = t->v[a].parent)
            need++;
        if (a >= 0 && !shown[a])
            break; /* no room for it and its callers */
        for (a = w[i].v; a >= 0 && !shown[a]; a = t->v[a].parent)
            shown[a] = 1;
        kept += need;
    }
    free(w);
    return kept;
}

static inline void combine(double *acc, double v, int aggr, int first)
{
    if (aggr == CUBE_AGGR_RATIO)
        *acc = NAN; /* its operands are not on the page */
    else if (first)
        *acc = v;
    else if (aggr == CUBE_AGGR_SUM)
        *acc += v;
    else if (aggr == CUBE_AGGR_MIN ? v < *acc : v > *acc)
        *acc = v;
}

/* Each group's values: its direct members' inclusive values combined. */
static int group_values(html_nodes *h, const vtree *t, const int *ml, const int *direct)
{
    size_t ng = (size_t)h->ngroups, np = (size_t)h->nprocs;
    h->gincl = malloc(sizeof *h->gincl * (ng * (size_t)h->nm + 1));
    h->gprocs = malloc(sizeof *h->gprocs * (ng * (size_t)h->nm * np + 1));
    char *first = malloc(ng + 1);
    if (!h->gincl || !h->gprocs || !first) {
        free(first);
        return VIEW_FAILED;
    }
    for (int k = 0; k < h->nm; k++) {
        int m = ml[k], aggr = t->p->metrics[m].aggr;
        memset(first, 1, ng + 1);
        for (int v = 0; v < t->nv; v++) {
            int g = direct[v];
            if (g < 0)
                continue;
            double *gi = &h->gincl[(size_t)k * ng + (size_t)g];
            double *gp = &h->gprocs[((size_t)k * ng + (size_t)g) * np];
            combine(gi, t->vm[m].incl[v], aggr, first[g]);
            for (size_t r = 0; r < np; r++)
                combine(&gp[r], vt_proc_value(t, m, v, (int)r, 1), aggr, first[g]);
            first[g] = 0;
        }
    }
    free(first);
    return 0;
}

/* Page nodes in tree order (callers first): a shown path, or, where a
 * caller's first callee left out appears, its group. */
static int lay_out(html_nodes *h, const vtree *t, const char *shown, int *direct)
{
    int *page = malloc(sizeof *page * ((size_t)t->nv + 1)); /* [vnode]: shown as, or folded under */
    int *slot = malloc(sizeof *slot * ((size_t)t->nv + 2)); /* [caller + 1]: its group's node */
    if (!page || !slot) {
        free(page), free(slot);
        return VIEW_FAILED;
    }
    for (int i = 0; i < t->nv + 2; i++)
        slot[i] = -1;
    for (int v = 0; v < t->nv; v++) {
        direct[v] = page[v] = -1;
        if (!t->v[v].visible)
            continue;
        int par = t->v[v].parent;
        if (shown[v]) {
            page[v] = h->n;
            h->vnode[h->n] = v;
            h->parent[h->n] = par >= 0 ? page[par] : -1;
            h->members[h->n++] = 1;
        } else if (par < 0 || shown[par]) {
            int *s = &slot[par + 1];
            if (*s < 0) {
                *s = h->n;
                h->vnode[h->n] = -1 - h->ngroups++;
                h->parent[h->n] = par >= 0 ? page[par] : -1;
                h->members[h->n++] = 0;
            }
            page[v] = *s;
            direct[v] = -1 - h->vnode[*s];
            h->members[*s]++;
        } else {
            page[v] = page[par]; /* deeper: inside its folded caller's value */
            h->members[page[v]]++;
        }
    }
    free(page), free(slot);
    return 0;
}

int html_nodes_choose(html_nodes *h, const vtree *t, const int *ml, int nm)
{
    memset(h, 0, sizeof *h);
    h->nm = nm;
    h->nprocs = t->p->nprocs > 0 ? t->p->nprocs : 1;
    double per_node = (double)(nm > 0 ? nm : 1) * (2.0 + h->nprocs);
    double cap = HTML_MAX_VALUES / (2 * per_node); /* a group beside every path at most */
    h->cap = cap > HTML_MAX_PATHS ? HTML_MAX_PATHS : cap < HTML_MIN_PATHS ? HTML_MIN_PATHS : (int)cap;
    size_t n = (size_t)t->nv + 1;
    char *shown = calloc(n, 1);
    int *direct = malloc(sizeof *direct * n);
    h->vnode = malloc(sizeof *h->vnode * 2 * n);
    h->parent = malloc(sizeof *h->parent * 2 * n);
    h->members = malloc(sizeof *h->members * 2 * n);
    int rc = shown && direct && h->vnode && h->parent && h->members ? 0 : VIEW_FAILED;
    if (rc == 0 && (h->shown = choose(h, t, ml, nm, shown)) < 0)
        rc = VIEW_FAILED;
    if (rc == 0)
        rc = lay_out(h, t, shown, direct);
    if (rc == 0 && h->ngroups)
        rc = group_values(h, t, ml, direct);
    free(shown), free(direct);
    if (rc)
        html_nodes_free(h);
    return rc;
}

void html_nodes_free(html_nodes *h)
{
    free(h->vnode), free(h->parent), free(h->members), free(h->gincl), free(h->gprocs);
    memset(h, 0, sizeof *h);
}

double html_node_value(const html_nodes *h, const vtree *t, const int *ml, int mk, int k, int inclusive)
{
    int v = h->vnode[k];
    if (v < 0)
        return h->gincl[(size_t)mk * (size_t)h->ngroups + (size_t)(-1 - v)];
    return inclusive ? t->vm[ml[mk]].incl[v] : t->vm[ml[mk]].excl[v];
}

double html_node_proc_value(const html_nodes *h, const vtree *t, const int *ml, int mk, int k, int proc)
{
    int v = h->vnode[k];
    if (v < 0)
        return h
            ->gprocs[((size_t)mk * (size_t)h->ngroups + (size_t)(-1 - v)) * (size_t)h->nprocs + (size_t)proc];
    return vt_proc_value(t, ml[mk], v, proc, 1);
}

const char *html_nodes_note(const html_nodes *h, char *buf, size_t len)
{
    if (h->ngroups == 0)
        return NULL;
    snprintf(buf, len,
             "page: %d of %d call paths shown; the other %d (each under %g%% of every summed metric's total, "
             "or past the page's %d) folded into %d '[N more call paths]' nodes",
             h->shown, h->visible, h->visible - h->shown, 100 * HTML_MIN_SHARE, h->cap, h->ngroups);
    return buf;
}
