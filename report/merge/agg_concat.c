/* agg_concat.c - fixed-size records up the aggregators' tree. */
#include "report/merge/agg_concat.h"

#include <stdlib.h>
#include <string.h>

/* Appends len bytes to *buf (of *have bytes); a failure frees *buf, and
 * the short or empty result tells rank 0 a part is missing. */
static void append(unsigned char **buf, size_t *have, const void *part, size_t len)
{
    if (!*buf || !len)
        return;
    unsigned char *grown = realloc(*buf, *have + len + 1);
    if (!grown) {
        free(*buf);
        *buf = NULL;
        return;
    }
    memcpy(grown + *have, part, len);
    *buf = grown, *have += len;
}

/* An aggregator: its members' records, in rank order. */
static void join_members(const agg_tree *t, const void *mine, size_t bytes, unsigned char **out, size_t *have)
{
    int n = t->group_size;
    void **blobs = calloc((size_t)n, sizeof *blobs);
    size_t *sizes = calloc((size_t)n, sizeof *sizes);
    if (!blobs || !sizes) {
        free(blobs), free(sizes);
        blobs = NULL, sizes = NULL;
        free(*out), *out = NULL;
    }
    agg_tree_gather(t, mine, bytes, blobs, sizes); /* taken all the same where blobs is NULL */
    for (int i = 0; blobs && i < n; i++) {
        append(out, have, blobs[i], sizes[i]);
        free(blobs[i]);
    }
    free(blobs), free(sizes);
}

/* An aggregator: its children's ranges, in order. */
static void join_children(const agg_tree *t, unsigned char **out, size_t *have)
{
    int child[AGG_FANIN * 8], n = agg_tree_children(t, child, AGG_FANIN * 8);
    for (int i = 0; i < n; i++) {
        void *buf = NULL;
        size_t len = 0;
        agg_tree_recv(t, child[i], &buf, &len);
        append(out, have, buf, len);
        free(buf);
    }
}

void *agg_concat_records(const agg_tree *t, const void *mine, size_t rec, int first)
{
    size_t bytes = t->rank < first ? rec : 0;
    if (t->group_rank != 0) {
        agg_tree_gather(t, mine, bytes, NULL, NULL);
        return NULL;
    }
    size_t have = 0;
    unsigned char *out = malloc(1);
    join_members(t, mine, bytes, &out, &have);
    join_children(t, &out, &have);
    if (t->rank != 0) {
        agg_tree_send_up(t, out, out ? have : 0);
        free(out);
        return NULL;
    }
    size_t want = (size_t)(first < t->size ? first : t->size) * rec;
    if (out && have == want)
        return out;
    free(out);
    return NULL;
}
