/*
 * tree_path.h - call paths (address lists) into calling context tree
 * nodes, for every unwinder. Like cct.h: no allocation (the caller has
 * reserved the nodes), no lock, async-signal-safe.
 */
#ifndef HPROF_TREE_PATH_H
#define HPROF_TREE_PATH_H

#include <stdint.h>

#include "core/cct.h"

/* Path of keys ips[from] (outermost) .. ips[0] under parent; the node of
 * ips[j] goes to nodes[j] when nodes is given. CCT_NONE if the tree is
 * full. Inline: the fast walk's commit runs it on every MPI call. */
static inline uint32_t tree_path_add(cct *tree, uint32_t parent, const uint64_t *ips, int from,
                                     uint32_t *nodes)
{
    uint32_t node = parent;
    for (int j = from; j >= 0 && node != CCT_NONE; j--) {
        node = cct_child(tree, node, ips[j]);
        if (nodes)
            nodes[j] = node;
    }
    return node;
}

/* The node of a failed unwind: the root's (unwind failed) child, with the
 * n frames that were known (ips[n-1] outermost) under it. */
uint32_t tree_path_failed(cct *tree, const uint64_t *ips, int n);

#endif
