/*
 * cr_tree.h - call-tree orders and the inclusive/exclusive conversion.
 *
 * Cube stores a metric's rows in a metric-dependent cnode order: depth-first
 * preorder for EXCLUSIVE metrics, and for INCLUSIVE ones "children before
 * descent" (each root, then for every node in preorder the list of its
 * children), the order cubelib's writer calls wide search. Index entries
 * are positions in that order, not cnode ids.
 */
#ifndef HPROF_CR_TREE_H
#define HPROF_CR_TREE_H

#include "report/cube/reader/cube_model.h"

/* Position -> cnode index for INCLUSIVE metrics; NULL if out of memory. */
int *cr_wide_order(const cube_profile *p);

/* Fills the metric's missing array (incl from excl or excl from incl).
 * The stored array must be set; the other is allocated here. 0 or -1. */
int cr_derive(const cube_profile *p, cube_metric *m);

#endif
