#include "core/select/select_graph.h"

#include <stdlib.h>

int select_adj_build(select_adj *adj, const select_graph *g, int reverse)
{
    int from = reverse ? 1 : 0, to = reverse ? 0 : 1;
    adj->start = calloc((size_t)g->nfn + 1, sizeof *adj->start);
    adj->list = malloc(sizeof *adj->list * (size_t)(g->ncalls ? g->ncalls : 1));
    int *fill = calloc((size_t)g->nfn + 1, sizeof *fill);
    if (!adj->start || !adj->list || !fill) {
        free(fill);
        select_adj_free(adj);
        return -1;
    }
    for (int i = 0; i < g->ncalls; i++)
        adj->start[g->calls[i][from] + 1]++;
    for (int i = 0; i < g->nfn; i++)
        adj->start[i + 1] += adj->start[i];
    for (int i = 0; i < g->ncalls; i++) {
        int f = g->calls[i][from];
        adj->list[adj->start[f] + fill[f]++] = g->calls[i][to];
    }
    free(fill);
    return 0;
}

void select_adj_free(select_adj *adj)
{
    free(adj->start);
    free(adj->list);
    adj->start = adj->list = NULL;
}

/* Breadth first from all members at once: a queue of functions, and where
 * each step's frontier ends. */
int select_closure(const select_adj *adj, int n, unsigned char *set, unsigned long long depth)
{
    int *queue = malloc(sizeof *queue * (size_t)(n ? n : 1));
    if (!queue)
        return -1;
    int head = 0, tail = 0;
    for (int i = 0; i < n; i++)
        if (set[i])
            queue[tail++] = i;
    for (unsigned long long step = 0; step < depth && head < tail; step++) {
        int frontier_end = tail;
        for (; head < frontier_end; head++) {
            int f = queue[head];
            for (int k = adj->start[f]; k < adj->start[f + 1]; k++) {
                int t = adj->list[k];
                if (!set[t]) {
                    set[t] = 1;
                    queue[tail++] = t;
                }
            }
        }
    }
    free(queue);
    return 0;
}
