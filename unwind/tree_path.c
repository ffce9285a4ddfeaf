/*
 * tree_path.c - see tree_path.h.
 */
#include "unwind/tree_path.h"

uint32_t tree_path_failed(cct *tree, const uint64_t *ips, int n)
{
    uint32_t node = cct_child(tree, CCT_ROOT, CCT_KEY_UNWIND_FAILED);
    if (node == CCT_NONE || n <= 0)
        return node;
    return tree_path_add(tree, node, ips, n - 1, NULL);
}
