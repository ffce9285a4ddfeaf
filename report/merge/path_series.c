/* path_series.c - the heaviest call paths over time (path_series.h). */
#include "report/merge/path_series.h"

#include <stdlib.h>
#include <string.h>

#include "report/merge/quiet.h"

#define NEARLY_ALL 0.99 /* a child with this share of a path stands for it */

/* This rank's exclusive time (MPI + computation) per unified cnode. */
static double *exclusive_times(const timeline_paths *tp, int n)
{
    double *x = calloc((size_t)n + 1, sizeof *x);
    const local_profile *lp = tp->lp;
    for (size_t i = 0; x && i < lp->npath_times; i++) {
        const local_path_time *e = &lp->path_times[i];
        int c = e->cnode < lp->defs->ncnodes ? tp->global_of[e->cnode] : -1;
        if (c >= 0 && c < n)
            x[c] += (double)e->ns[0] + (double)e->ns[1];
    }
    return x;
}

/* Rank 0: the file's parent of each file cnode, from rank 0's
 * definitions, which hold every rank's (NULL when out of memory). */
static int *file_parents(const timeline_paths *tp, int n)
{
    int *parent = malloc(((size_t)n + 1) * sizeof *parent);
    const defs *d = tp->lp->defs;
    if (!parent)
        return NULL;
    memset(parent, 0xff, ((size_t)n + 1) * sizeof *parent);
    for (int c = 0; c < d->ncnodes; c++) {
        int f = tp->global_of[c], p = d->cnodes[c].parent;
        if (f >= 0 && f < n)
            parent[f] = p >= 0 ? tp->global_of[p] : -1;
    }
    return parent;
}

/* Rank 0: the heaviest paths by inclusive time (incl: the exclusive sums
 * over ranks, made inclusive here), heaviest first. */
static int choose(const timeline_paths *tp, double *incl, int max, int *ids)
{
    int n = tp->nglobal, k = 0;
    int *parent = file_parents(tp, n);
    double *top_child = calloc((size_t)n + 1, sizeof *top_child);
    char *taken = calloc((size_t)n + 1, 1);
    if (!parent || !top_child || !taken) {
        free(parent), free(top_child), free(taken);
        return 0;
    }
    /* the file's ids are preorder positions: a parent's id is below its children's */
    for (int c = n - 1; c > 0; c--)
        if (parent[c] >= 0)
            incl[parent[c]] += incl[c];
    for (int c = 1; c < n; c++) {
        int p = parent[c];
        if (p >= 0 && incl[c] > top_child[p])
            top_child[p] = incl[c];
    }
    for (; k < max; k++) {
        int best = -1;
        for (int c = 0; c < n; c++)
            if (!taken[c] && parent[c] >= 0 && incl[c] > 0 && top_child[c] < NEARLY_ALL * incl[c] &&
                (best < 0 || incl[c] > incl[best]))
                best = c;
        if (best < 0)
            break;
        taken[best] = 1;
        ids[k] = best;
    }
    free(parent), free(top_child), free(taken);
    return k;
}

void path_series_select(MPI_Comm comm, int rank, timeline_paths *tp, int max, unsigned *agree, int nagree)
{
    enum {
        CAP = (int)(sizeof tp->ids / sizeof tp->ids[0])
    };
    int on = tp->lp && tp->lp->paths_on && tp->global_of && max > 0;
    int n = tp->nglobal;
    tp->k = 0;
    if (max > CAP)
        max = CAP;
    double *mine = on ? exclusive_times(tp, n) : calloc((size_t)n + 1, sizeof(double));
    double *sum = rank == 0 ? calloc((size_t)n + 1, sizeof *sum) : NULL;
    /* one agreement (each collective waits for the slowest rank): does
     * any rank keep path logs, did every rank get its memory, and agree */
    unsigned mine_flags[2 + PATH_SERIES_AGREE] = { on, !mine || (rank == 0 && !sum) },
                            flags[2 + PATH_SERIES_AGREE] = { 0, 1 };
    nagree = nagree < 0 ? 0 : nagree > PATH_SERIES_AGREE ? PATH_SERIES_AGREE : nagree;
    for (int i = 0; i < nagree; i++)
        mine_flags[2 + i] = flags[2 + i] = agree[i];
    quiet_allreduce(mine_flags, flags, 2 + nagree, MPI_UNSIGNED, MPI_MAX, comm);
    for (int i = 0; i < nagree; i++)
        agree[i] = flags[2 + i];
    if (flags[0] && !flags[1]) {
        int chosen[1 + CAP] = { 0 }; /* k, then the ids */
        quiet_reduce(mine, sum, n, MPI_DOUBLE, MPI_SUM, 0, comm);
        if (rank == 0)
            chosen[0] = choose(tp, sum, max, chosen + 1);
        quiet_bcast(chosen, 1 + CAP, MPI_INT, 0, comm);
        tp->k = chosen[0] >= 0 && chosen[0] <= CAP ? chosen[0] : 0;
        memcpy(tp->ids, chosen + 1, sizeof(int) * (size_t)tp->k);
    }
    free(mine), free(sum);
}

uint64_t *path_series_rows(const timeline_paths *tp, uint32_t shift, uint32_t nb)
{
    size_t cells = (size_t)tp->k * 2 * nb;
    uint64_t *rows = calloc(cells + 1, sizeof *rows);
    int n = tp->nglobal;
    int *sel = malloc(((size_t)n + 1) * sizeof *sel);
    const local_profile *lp = tp->lp;
    if (!rows || !sel || !lp || !tp->global_of) {
        free(sel);
        return rows; /* zeros: a rank without logs */
    }
    memset(sel, 0xff, (size_t)n * sizeof *sel);
    for (int k = 0; k < tp->k; k++)
        sel[tp->ids[k]] = k;
    const defs *d = lp->defs;
    for (size_t i = 0; i < lp->npath_times; i++) {
        const local_path_time *e = &lp->path_times[i];
        uint64_t b = e->t0 >> shift;
        if (b >= nb)
            b = nb - 1;
        /* every chosen path above the entry's cnode gets its time */
        for (int lc = e->cnode; lc >= 0 && lc < d->ncnodes; lc = d->cnodes[lc].parent) {
            int c = tp->global_of[lc];
            if (c >= 0 && c < n && sel[c] >= 0)
                for (int f = 0; f < 2; f++)
                    rows[((size_t)sel[c] * 2 + (size_t)f) * nb + b] += e->ns[f];
        }
    }
    free(sel);
    return rows;
}
