/*
 * select_graph.h - the calls of a select_graph as adjacency lists, and the
 * transitive closure over them that callers() and callees() select
 * (select_eval.c). Cycles (recursion, mutual recursion) are fine: each
 * function is visited once, breadth first, so a depth limit counts the
 * fewest calls between a function and the set. Private to core/select/.
 */
#ifndef HPROF_SELECT_GRAPH_H
#define HPROF_SELECT_GRAPH_H

#include "core/select/select.h"

typedef struct select_adj { /* neighbours of i: list[start[i] .. start[i + 1]) */
    int *start, *list;
} select_adj;

/* From caller to callee, or (reverse) from callee to caller. The calls'
 * indices must be in range (select_eval checks). 0, or -1: no memory. */
int select_adj_build(select_adj *adj, const select_graph *g, int reverse);
void select_adj_free(select_adj *adj);

/* Adds to set (n bytes, 0/1) every function reachable from a member in at
 * most depth steps along adj (~0ull: any number). 0, or -1: no memory. */
int select_closure(const select_adj *adj, int n, unsigned char *set, unsigned long long depth);

#endif
