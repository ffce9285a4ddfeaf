/* cr_tree.c - cnode enumeration orders and inclusive/exclusive values. */
#include "report/cube/reader/cr_tree.h"
#include "report/cube/reader/cr_util.h"

#include <stdlib.h>
#include <string.h>

int *cr_wide_order(const cube_profile *p)
{
    int *seq = malloc(sizeof *seq * (size_t)(p->ncnodes ? p->ncnodes : 1));
    if (!seq)
        return NULL;
    int k = 0;
    for (int r = 0; r < p->nroots; r++) {
        int first = p->roots[r];
        int end = r + 1 < p->nroots ? p->roots[r + 1] : p->ncnodes;
        seq[k++] = first;
        /* a subtree is a contiguous preorder range of the document */
        for (int v = first; v < end; v++)
            for (int c = p->cnodes[v].first_child; c >= 0; c = p->cnodes[c].next_sibling)
                seq[k++] = c;
    }
    return seq;
}

static void combine_row(double *dst, const double *src, int n, int aggr)
{
    for (int i = 0; i < n; i++) {
        if (aggr == CUBE_AGGR_SUM)
            dst[i] += src[i];
        else if (aggr == CUBE_AGGR_MIN ? src[i] < dst[i] : src[i] > dst[i])
            dst[i] = src[i];
    }
}

static void subtract_row(double *dst, const double *src, int n)
{
    for (int i = 0; i < n; i++)
        dst[i] -= src[i];
}

int cr_derive(const cube_profile *p, cube_metric *m)
{
    size_t n = (size_t)p->nlocs;
    size_t cells = (size_t)p->ncnodes * n;
    const double *from = m->kind == CUBE_KIND_INCLUSIVE ? m->incl : m->excl;
    double *to = cr_alloc_values(cells);
    if (!to)
        return -1;
    memcpy(to, from, sizeof *to * cells);
    if (m->kind == CUBE_KIND_INCLUSIVE) {
        m->excl = to;
        /* MIN/MAX cannot be stored inclusive (Cube refuses it): excl = incl */
        if (m->aggr == CUBE_AGGR_SUM)
            for (int i = 0; i < p->ncnodes; i++)
                if (p->cnodes[i].parent >= 0)
                    subtract_row(to + (size_t)p->cnodes[i].parent * n, from + (size_t)i * n, (int)n);
    } else {
        m->incl = to;
        /* children follow parents, so walking backwards sums whole subtrees */
        if (m->kind == CUBE_KIND_EXCLUSIVE)
            for (int i = p->ncnodes - 1; i >= 0; i--)
                if (p->cnodes[i].parent >= 0)
                    combine_row(to + (size_t)p->cnodes[i].parent * n, to + (size_t)i * n, (int)n, m->aggr);
    }
    return 0;
}
