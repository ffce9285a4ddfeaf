/* view_visits.c - lower-bound function visits (view_visits.h). */
#include "tools/hprof-view/view_visits.h"

#include <stdio.h>
#include <stdlib.h>

double *view_entries(vtree *t)
{
    cube_profile *p = t->p;
    int m = view_metric(p, VIEW_ENTRIES_METRIC);
    if (m < 0 || cube_load_metric(p, m, t->o->err, t->o->errlen) < 0 || !p->metrics[m].excl)
        return NULL;
    double *e = calloc((size_t)t->nv + 1, sizeof *e);
    size_t nl = (size_t)p->nlocs;
    for (int c = 0; e && c < p->ncnodes; c++) {
        int v = t->map[c];
        if (v < 0 || p->cnodes[c].region != t->v[v].region)
            continue; /* the program root (no vnode), or a hidden frame folded into v */
        for (size_t l = 0; l < nl; l++)
            if (t->locsel[l])
                e[v] += p->metrics[m].excl[(size_t)c * nl + l];
    }
    return e;
}

const char *view_lower_bound(char *buf, size_t len, double entries)
{
    if (entries <= 0)
        return NULL;
    snprintf(buf, len, ">=%.0f", entries);
    return buf;
}
