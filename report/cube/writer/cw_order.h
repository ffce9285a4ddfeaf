/*
 * cw_order.h - orders of a forest given as a parent array (parents before
 * children, children in index order): depth-first preorder, which becomes
 * the cnode ids in the file and the row order of EXCLUSIVE metrics, and
 * cubelib's "wide" order (each root, then for every node in preorder its
 * list of children), the row order of INCLUSIVE metrics.
 */
#ifndef HPROF_CW_ORDER_H
#define HPROF_CW_ORDER_H

typedef struct cw_forest {
    int n;
    int *first_child, *next_sibling, *depth;
    int *pre;      /* preorder: position -> node */
    int *pre_pos;  /* node -> preorder position */
    int *wide_pos; /* node -> wide position (NULL unless asked for) */
} cw_forest;

/* parent[i] < i or -1. Returns 0, or -1 when out of memory. */
int cw_forest_build(cw_forest *f, const int *parent, int n, int want_wide);
void cw_forest_free(cw_forest *f);

#endif
