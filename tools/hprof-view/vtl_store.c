/* vtl_store.c - the time line's series, each distinct one once (vtl_store.h). */
#include "tools/hprof-view/vtl_store.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

int vtl_store_init(timeline *tl, double width, int nb, int nranks)
{
    tl->width = width, tl->nb = nb, tl->nranks = nranks;
    tl->cap = 64;
    tl->nseries = 1; /* the zero series every row names until told otherwise */
    tl->vals = calloc(tl->cap * (size_t)nb, sizeof *tl->vals);
    tl->row = calloc((size_t)nranks * VTL_FIELDS, sizeof *tl->row);
    tl->phase = calloc(VTL_MAX_PHASES, sizeof *tl->phase);
    return tl->vals && tl->row && tl->phase ? 0 : -1;
}

int vtl_store_paths(timeline *tl, int k)
{
    tl->path_cnode = malloc(sizeof *tl->path_cnode * ((size_t)k + 1));
    tl->prow = calloc((size_t)k * (size_t)tl->nranks * 2 + 1, sizeof *tl->prow);
    if (!tl->path_cnode || !tl->prow)
        return -1;
    for (int i = 0; i < k; i++)
        tl->path_cnode[i] = -1;
    tl->npaths = k;
    return 0;
}

double *vtl_store_series(timeline *tl, uint32_t *id)
{
    if (tl->nseries == tl->cap) {
        size_t cap = tl->cap * 2;
        double *v = cap < UINT32_MAX ? realloc(tl->vals, sizeof *v * cap * (size_t)tl->nb) : NULL;
        if (!v)
            return NULL;
        tl->vals = v, tl->cap = cap;
    }
    double *v = tl->vals + tl->nseries * (size_t)tl->nb;
    memset(v, 0, sizeof *v * (size_t)tl->nb);
    *id = (uint32_t)tl->nseries++;
    return v;
}

void vtl_store_phase(timeline *tl, int r, double ns, long long level)
{
    if (level < INT_MIN || level > INT_MAX || tl->nphases >= VTL_MAX_PHASES)
        return;
    tl->phase[tl->nphases].rank = r, tl->phase[tl->nphases].level = (int)level;
    tl->phase[tl->nphases++].t = ns * 1e-9;
}

/* The last bucket with a value above 0 in series s, plus 1; 0: none. */
static int last_positive(const timeline *tl, uint32_t s)
{
    const double *v = tl->vals + (size_t)s * (size_t)tl->nb;
    for (int b = tl->nb; b > 0; b--)
        if (v[b - 1] > 0)
            return b;
    return 0;
}

/* dst[b] = the sum over ranks of the series ids[r * stride]: each distinct
 * series added once, times the ranks naming it (count[] is left zeroed).
 * Buckets used by them raise *last when last is given. */
static void sum_ranks(const timeline *tl, const uint32_t *ids, size_t stride, uint32_t *count, double *dst,
                      int *last)
{
    for (int r = 0; r < tl->nranks; r++)
        count[ids[(size_t)r * stride]]++;
    for (int r = 0; r < tl->nranks; r++) {
        uint32_t s = ids[(size_t)r * stride], n = count[s];
        if (!n)
            continue; /* added already */
        const double *v = tl->vals + (size_t)s * (size_t)tl->nb;
        for (int b = 0; b < tl->nb; b++)
            dst[b] += n * v[b];
        count[s] = 0;
        if (last) {
            int l = last_positive(tl, s);
            *last = l > *last ? l : *last;
        }
    }
}

int vtl_store_finish(timeline *tl)
{
    size_t nb = (size_t)tl->nb;
    uint32_t *count = calloc(tl->nseries, sizeof *count);
    tl->total = calloc(VTL_FIELDS * nb, sizeof *tl->total);
    tl->ptotal = calloc((size_t)tl->npaths * 2 * nb + 1, sizeof *tl->ptotal);
    if (!count || !tl->total || !tl->ptotal) {
        free(count);
        return -1;
    }
    tl->last_used = 0;
    for (int f = 0; f < VTL_FIELDS; f++)
        sum_ranks(tl, tl->row + f, VTL_FIELDS, count, tl->total + f * nb,
                  f == VTL_MPI || f == VTL_COMP ? &tl->last_used : NULL);
    for (int k = 0; k < tl->npaths; k++)
        for (int f = 0; f < 2; f++)
            sum_ranks(tl, tl->prow + (size_t)k * (size_t)tl->nranks * 2 + f, 2, count,
                      tl->ptotal + ((size_t)k * 2 + f) * nb, NULL);
    free(count);
    return 0;
}

void vtl_store_free(timeline *tl)
{
    free(tl->vals);
    free(tl->row);
    free(tl->prow);
    free(tl->total);
    free(tl->ptotal);
    free(tl->phase);
    free(tl->path_cnode);
    memset(tl, 0, sizeof *tl);
}

const double *vtl_rank_series(const timeline *tl, int r, int f)
{
    return tl->vals + (size_t)tl->row[(size_t)r * VTL_FIELDS + f] * (size_t)tl->nb;
}

const double *vtl_path_series(const timeline *tl, int k, int r, int f)
{
    size_t at = ((size_t)k * (size_t)tl->nranks + (size_t)r) * 2 + (size_t)f;
    return tl->vals + (size_t)tl->prow[at] * (size_t)tl->nb;
}
