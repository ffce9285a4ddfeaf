/* view_export_nodes.c - exported call paths with every location's values (view_export_nodes.h). */
#include "tools/hprof-view/view_export_nodes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A group's value: its members' combined; NaN marks "none yet". */
static void combine(double *acc, double v, int aggr)
{
    if (isnan(*acc) || aggr == CUBE_AGGR_RATIO)
        *acc = aggr == CUBE_AGGR_RATIO ? NAN : v; /* a ratio's operands are not at hand */
    else if (aggr == CUBE_AGGR_SUM)
        *acc += v;
    else if (aggr == CUBE_AGGR_MIN ? v < *acc : v > *acc)
        *acc = v;
}

/* [vnode]: the group node a left-out vnode is a direct member of, -1 for
 * shown, hidden (--focus) and deeper left-out vnodes. */
static int *direct_groups(const export_nodes *e, const vtree *t)
{
    const html_nodes *h = &e->h;
    int *page = malloc(sizeof *page * ((size_t)t->nv + 1));
    int *group_under = malloc(sizeof *group_under * ((size_t)h->n + 2)); /* [page caller + 1] */
    int *direct = malloc(sizeof *direct * ((size_t)t->nv + 1));
    if (!page || !group_under || !direct) {
        free(page), free(group_under), free(direct);
        return NULL;
    }
    for (int v = 0; v < t->nv; v++)
        page[v] = direct[v] = -1;
    for (int k = 0; k < h->n + 2; k++)
        group_under[k] = -1;
    for (int k = 0; k < h->n; k++) {
        if (h->vnode[k] >= 0)
            page[h->vnode[k]] = k;
        else
            group_under[h->parent[k] + 1] = k;
    }
    for (int v = 0; v < t->nv; v++) { /* callers first */
        int par = t->v[v].parent;
        if (!t->v[v].visible || page[v] >= 0)
            continue;
        if (par < 0 || (page[par] >= 0 && h->vnode[page[par]] == par))
            direct[v] = group_under[(par < 0 ? -1 : page[par]) + 1];
        page[v] = direct[v] >= 0 ? direct[v] : par >= 0 ? page[par] : -1;
    }
    free(page), free(group_under);
    return direct;
}

/* Metric k's values on the nodes from the vnodes' values on every location. */
static int fill_metric(export_nodes *e, vtree *t, int m, int k, const int *direct)
{
    double *ex, *in;
    int rc = vt_metric_by_loc(t, m, &ex, &in);
    if (rc)
        return rc;
    size_t nl = (size_t)e->nlocs, n = (size_t)e->h.n;
    double *dex = e->excl + (size_t)k * n * nl, *din = e->incl + (size_t)k * n * nl;
    int aggr = t->p->metrics[m].aggr;
    for (size_t node = 0; node < n; node++) {
        int v = e->h.vnode[node];
        for (size_t l = 0; l < nl; l++) {
            dex[node * nl + l] = v >= 0 ? ex[(size_t)v * nl + l] : NAN;
            din[node * nl + l] = v >= 0 ? in[(size_t)v * nl + l] : NAN;
        }
    }
    for (int v = 0; v < t->nv; v++)
        for (size_t l = 0; direct[v] >= 0 && l < nl; l++)
            combine(&din[(size_t)direct[v] * nl + l], in[(size_t)v * nl + l], aggr);
    for (size_t node = 0; node < n; node++)
        if (e->h.vnode[node] < 0)
            memcpy(&dex[node * nl], &din[node * nl], sizeof *dex * nl);
    free(ex), free(in);
    return 0;
}

int export_nodes_build(export_nodes *e, vtree *t, const int *ml, int nm)
{
    memset(e, 0, sizeof *e);
    e->nm = nm;
    e->nlocs = t->p->nlocs;
    int rc = 0;
    for (int k = 0; rc == 0 && k < nm; k++)
        rc = vt_metric_locs(t, ml[k]); /* the bound weighs and folds with them */
    if (rc == 0)
        rc = html_nodes_choose(&e->h, t, ml, nm);
    if (rc)
        return rc;
    size_t cells = (size_t)nm * (size_t)e->h.n * (size_t)e->nlocs + 1;
    int *direct = direct_groups(e, t);
    e->excl = malloc(sizeof *e->excl * cells);
    e->incl = malloc(sizeof *e->incl * cells);
    rc = direct && e->excl && e->incl ? 0 : VIEW_FAILED;
    for (int k = 0; rc == 0 && k < nm; k++)
        rc = fill_metric(e, t, ml[k], k, direct);
    free(direct);
    if (rc)
        export_nodes_free(e);
    return rc;
}

void export_nodes_free(export_nodes *e)
{
    html_nodes_free(&e->h);
    free(e->excl), free(e->incl);
    memset(e, 0, sizeof *e);
}

double export_value(const export_nodes *e, int mk, int k, int loc, int inclusive)
{
    size_t i = ((size_t)mk * (size_t)e->h.n + (size_t)k) * (size_t)e->nlocs + (size_t)loc;
    return inclusive ? e->incl[i] : e->excl[i];
}

const char *export_node_name(const export_nodes *e, const vtree *t, int k, char *buf, size_t len)
{
    if (e->h.vnode[k] >= 0)
        return vt_name(t, e->h.vnode[k]);
    snprintf(buf, len, "[%d more call paths]", e->h.members[k]);
    return buf;
}
