/* cw_order.c - preorder and wide order of a forest without recursion. */
#include "report/cube/writer/cw_order.h"

#include <stdlib.h>
#include <string.h>

static int *alloc_ints(int n)
{
    return malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
}

/* Sibling lists in index order; the roots form one more list. */
static int link_children(cw_forest *f, const int *parent, int *first_root)
{
    *first_root = -1;
    for (int i = f->n - 1; i >= 0; i--) {
        int *head = parent[i] >= 0 ? &f->first_child[parent[i]] : first_root;
        f->next_sibling[i] = *head;
        *head = i;
    }
    for (int i = 0; i < f->n; i++)
        f->depth[i] = parent[i] >= 0 ? f->depth[parent[i]] + 1 : 0;
    return 0;
}

static void preorder(cw_forest *f, const int *parent, int first_root)
{
    int k = 0, v = first_root;
    while (v >= 0) {
        f->pre_pos[v] = k;
        f->pre[k++] = v;
        if (f->first_child[v] >= 0) {
            v = f->first_child[v];
            continue;
        }
        while (v >= 0 && f->next_sibling[v] < 0)
            v = parent[v];
        if (v >= 0)
            v = f->next_sibling[v];
    }
}

/* A root's subtree is a contiguous range of the preorder. */
static void wide_order(cw_forest *f)
{
    int k = 0;
    for (int s = 0; s < f->n;) {
        int root = f->pre[s], e = s + 1;
        while (e < f->n && f->depth[f->pre[e]] > 0)
            e++;
        f->wide_pos[root] = k++;
        for (int i = s; i < e; i++)
            for (int c = f->first_child[f->pre[i]]; c >= 0; c = f->next_sibling[c])
                f->wide_pos[c] = k++;
        s = e;
    }
}

int cw_forest_build(cw_forest *f, const int *parent, int n, int want_wide)
{
    memset(f, 0, sizeof *f);
    f->n = n;
    f->first_child = alloc_ints(n);
    f->next_sibling = alloc_ints(n);
    f->depth = alloc_ints(n);
    f->pre = alloc_ints(n);
    f->pre_pos = alloc_ints(n);
    f->wide_pos = want_wide ? alloc_ints(n) : NULL;
    if (!f->first_child || !f->next_sibling || !f->depth || !f->pre || !f->pre_pos ||
        (want_wide && !f->wide_pos)) {
        cw_forest_free(f);
        return -1;
    }
    for (int i = 0; i < n; i++)
        f->first_child[i] = -1;
    int first_root;
    link_children(f, parent, &first_root);
    preorder(f, parent, first_root);
    if (want_wide)
        wide_order(f);
    return 0;
}

void cw_forest_free(cw_forest *f)
{
    free(f->first_child), free(f->next_sibling), free(f->depth);
    free(f->pre), free(f->pre_pos), free(f->wide_pos);
    memset(f, 0, sizeof *f);
}
