/* layout_tree.c - the layout's blocks up the aggregators' tree. */
#include "report/merge/layout_tree.h"

#include <stdlib.h>

/* An aggregator: its members' blocks, in rank order, into out. */
static void join_members(const agg_tree *t, const layout_block *mine, layout_block *out)
{
    int n = t->group_size;
    void **blobs = calloc((size_t)n, sizeof *blobs);
    size_t *sizes = calloc((size_t)n, sizeof *sizes);
    if (!blobs || !sizes) {
        free(blobs), free(sizes);
        blobs = NULL, sizes = NULL;
        layout_block_fail(out);
    }
    agg_tree_gather(t, mine->buf, mine->buf ? mine->len : 0, blobs, sizes);
    for (int i = 0; blobs && i < n; i++) {
        layout_block_join(out, blobs[i], sizes[i]);
        free(blobs[i]);
    }
    free(blobs), free(sizes);
}

/* An aggregator: its children's blocks, in the order of their ranges. */
static void join_children(const agg_tree *t, layout_block *out)
{
    int child[AGG_FANIN * 8], n = agg_tree_children(t, child, AGG_FANIN * 8);
    for (int i = 0; i < n; i++) {
        void *buf = NULL;
        size_t len = 0;
        if (agg_tree_recv(t, child[i], &buf, &len) != 0)
            layout_block_fail(out);
        layout_block_join(out, buf, len);
        free(buf);
    }
}

int layout_tree_gather(const agg_tree *t, layout_block *b)
{
    if (t->group_rank != 0)
        return agg_tree_gather(t, b->buf, b->buf ? b->len : 0, NULL, NULL);
    layout_block out;
    layout_block_begin(&out);
    join_members(t, b, &out);
    join_children(t, &out);
    layout_block_free(b);
    if (t->rank == 0) {
        *b = out;
        return out.failed ? -1 : 0;
    }
    int rc = agg_tree_send_up(t, out.buf, out.buf ? out.len : 0);
    layout_block_free(&out);
    return rc;
}
