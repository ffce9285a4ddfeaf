/*
 * vtl_findings.c - what the timeline says on its own: stretches where a
 * rank computes much longer than the others (with the heaviest path that
 * explains it), and moments where the MPI share of the whole run jumps.
 * Used by --timeline and --hotspots, over the buckets shown (--phase).
 */
#include "tools/hprof-view/vtl_findings.h"

#include <math.h>
#include <stdlib.h>

#define SLOW_RATIO 1.5 /* "computes much longer": 1.5x the others' mean */
#define MIN_RUN 3      /* buckets, at least */
#define EXPLAINS 0.75  /* a deeper path with this share of the best excess names it */

/* A stretch survives a gap (a busy machine makes them) of up to a quarter
 * of its length so far: a long imbalance is not cut in two, short noise
 * does not bridge far. */
static int gap_allowed(int start, int last)
{
    int g = (last - start + 1) / 4;
    return g > MIN_RUN ? g : MIN_RUN;
}

/* Rank r computes SLOW_RATIO times the mean of the others in bucket b, and
 * for at least 5% of the bucket; all[b]: every rank's computation in b
 * (summed once: summing it again for each rank took minutes at 16k ranks). */
static int is_slow(const timeline *tl, const double *all, int r, int b)
{
    double mine = vtl_sum(tl, r, r + 1, VTL_COMP, b, b + 1);
    double others = (all[b] - mine) / (tl->nranks - 1);
    return mine > SLOW_RATIO * others && mine > 0.05 * tl->width * 1e9;
}

/* A stretch starts where its slow buckets are dense: at least 3 in 4 of
 * the next `window` (a busy machine scatters a few before the real one). */
static int dense_start(const timeline *tl, const double *all, int r, int start, int last, int window)
{
    for (; start < last; start++) {
        int n = 0, end = start + window <= last + 1 ? start + window : last + 1;
        for (int b = start; b < end; b++)
            n += is_slow(tl, all, r, b);
        if (is_slow(tl, all, r, start) && 4 * n >= 3 * (end - start))
            break;
    }
    return start;
}

static double others_mean(double all, double mine, int nranks)
{
    return (all - mine) / (nranks - 1);
}

/* The chosen path that explains the stretch: of the paths whose
 * computation on the rank exceeds the others' mean there by at least
 * SLOW_RATIO, the deepest with EXPLAINS of the largest excess. */
static void explain(const timeline *tl, const cube_profile *p, vtl_stretch *s)
{
    double best = 0;
    s->path = -1;
    for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < tl->npaths; k++) {
            int c = tl->path_cnode[k];
            double mine = vtl_path_sum(tl, k, s->rank, s->rank + 1, VTL_COMP, s->b0, s->b1);
            double mean =
                others_mean(vtl_path_sum(tl, k, 0, tl->nranks, VTL_COMP, s->b0, s->b1), mine, tl->nranks);
            double excess = mine - mean;
            if (c < 0 || !(mine > SLOW_RATIO * mean) || excess <= 0)
                continue;
            if (pass == 0 && excess > best)
                best = excess;
            if (pass == 1 && excess >= EXPLAINS * best &&
                (s->path < 0 || p->cnodes[c].depth > p->cnodes[tl->path_cnode[s->path]].depth)) {
                s->path = k;
                s->path_ratio = mean > 0 ? mine / mean : INFINITY;
            }
        }
}

static int make_stretch(const timeline *tl, const cube_profile *p, const double *all, int r, int start,
                        int last, int min_run, vtl_stretch *s)
{
    double mine = vtl_sum(tl, r, r + 1, VTL_COMP, start, last + 1), sum = 0;
    for (int b = start; b <= last; b++)
        sum += all[b];
    double others = others_mean(sum, mine, tl->nranks);
    if (last - start + 1 < min_run || !(mine > SLOW_RATIO * others))
        return 0;
    *s = (vtl_stretch){
        r, start, last + 1, others > 0 ? mine / others : INFINITY, -1, 0, (mine - others) * 1e-9
    };
    explain(tl, p, s);
    return 1;
}

int vtl_slow_stretches(const timeline *tl, const cube_profile *p, vtl_stretch *out, int max)
{
    int found = 0, used = tl->b1 - tl->b0, min_run = used / 20 > MIN_RUN ? used / 20 : MIN_RUN;
    double *all = malloc(sizeof *all * (size_t)(tl->nb + 1));
    if (!all)
        return 0;
    for (int b = 0; b < tl->nb; b++)
        all[b] = vtl_sum(tl, 0, tl->nranks, VTL_COMP, b, b + 1);
    for (int r = 0; r < tl->nranks && found < max && tl->nranks > 1; r++) {
        int start = -1, last_slow = -1;
        for (int b = tl->b0; b <= tl->b1 && found < max; b++) {
            if (b < tl->b1 && is_slow(tl, all, r, b)) {
                if (start < 0)
                    start = b;
                last_slow = b;
            } else if (start >= 0 && (b - last_slow > gap_allowed(start, last_slow) || b == tl->b1)) {
                start = dense_start(tl, all, r, start, last_slow, min_run);
                found += make_stretch(tl, p, all, r, start, last_slow, min_run, &out[found]);
                start = -1;
            }
        }
    }
    free(all);
    return found;
}

/* Moments where the whole run's MPI share moves by 30 points or more between
 * the 3 buckets before and the 3 after. */
int vtl_share_jumps(const timeline *tl, FILE *out, int budget)
{
    int found = 0, w = 3;
    for (int b = tl->b0 + w; b + w <= tl->b1 && found < budget; b++) {
        double s0 = vtl_share(tl, 0, tl->nranks, b - w, b), s1 = vtl_share(tl, 0, tl->nranks, b, b + w);
        if (s0 < 0 || s1 < 0)
            continue;
        if (fabs(s1 - s0) >= 0.3) {
            fprintf(out, "  at %.3f s, the MPI share of all ranks goes from %.0f%% to %.0f%%\n",
                    b * tl->width, 100 * s0, 100 * s1);
            found++;
            b += w; /* one finding per jump */
        }
    }
    return found;
}
