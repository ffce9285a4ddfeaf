/* view_speedscope_time.c - the heaviest paths over time as evented profiles (view_speedscope_time.h). */
#include "tools/hprof-view/view_speedscope_time.h"
#include "tools/hprof-view/vtl_data.h"
#include "tools/hprof-view/vtree.h"

#include <stdlib.h>

typedef struct lay {
    const cube_profile *p;
    const timeline *tl;
    int n;       /* paths laid out */
    int *up;     /* [path]: the nearest path among them that calls it, -1 none */
    double *len; /* [path]: seconds in the current column */
    FILE *out;
    int first; /* no event written yet */
} lay;

/* Paths with a known cnode not deeper than VT_PATH_FRAMES take part. */
static int usable(const lay *l, int k)
{
    int c = l->tl->path_cnode[k];
    return c >= 0 && c < l->p->ncnodes && l->p->cnodes[c].depth <= VT_PATH_FRAMES;
}

static void find_callers(lay *l)
{
    for (int k = 0; k < l->n; k++) {
        l->up[k] = -1;
        if (!usable(l, k))
            continue;
        for (int c = l->p->cnodes[l->tl->path_cnode[k]].parent; c >= 0 && l->up[k] < 0;
             c = l->p->cnodes[c].parent)
            for (int j = 0; j < l->n; j++)
                if (j != k && usable(l, j) && l->tl->path_cnode[j] == c)
                    l->up[k] = j;
    }
}

static void event(lay *l, char type, int region, double at)
{
    fprintf(l->out, "%s{\"type\": \"%c\", \"frame\": %d, \"at\": %.9g}", l->first ? "" : ",", type, region,
            at);
    l->first = 0;
}

/* Opens (or closes, in reverse) the frames of path k below its caller path's. */
static void frames(lay *l, int k, char type, double at)
{
    int chain[VT_PATH_FRAMES + 1], n = 0;
    int stop = l->up[k] >= 0 ? l->tl->path_cnode[l->up[k]] : -1;
    for (int c = l->tl->path_cnode[k]; c >= 0 && c != stop && n <= VT_PATH_FRAMES; c = l->p->cnodes[c].parent)
        if (!vt_is_program_root(l->p, c) && l->p->cnodes[c].region >= 0)
            chain[n++] = l->p->cnodes[c].region;
    for (int i = 0; i < n; i++)
        event(l, type, chain[type == 'O' ? n - 1 - i : i], at);
}

/* Lays out the paths called by path `caller` (-1: the top ones) from
 * `start`, never past `end`; returns where they end. */
static double place(lay *l, int caller, double start, double end)
{
    double at = start;
    for (int k = 0; k < l->n; k++) {
        if (!usable(l, k) || l->up[k] != caller || l->len[k] <= 0 || at >= end)
            continue;
        double stop = at + l->len[k] < end ? at + l->len[k] : end;
        frames(l, k, 'O', at);
        place(l, k, at, stop);
        frames(l, k, 'C', stop);
        at = stop;
    }
    return at;
}

static void rank_profile(lay *l, int r)
{
    const timeline *tl = l->tl;
    int shown = tl->b1 - tl->b0, cols = shown < SPEEDSCOPE_TIME_COLS ? shown : SPEEDSCOPE_TIME_COLS;
    fprintf(l->out,
            ",\n    {\"type\": \"evented\", \"name\": \"rank %d over time\", \"unit\": \"seconds\", "
            "\"startValue\": %.9g, \"endValue\": %.9g,\n     \"events\": [",
            r, tl->b0 * tl->width, tl->b1 * tl->width);
    l->first = 1;
    for (int c = 0, b0, b1; c < cols; c++) {
        vtl_column(tl, c, cols, &b0, &b1);
        for (int k = 0; k < l->n; k++)
            l->len[k] = vtl_path_sum(tl, k, r, r + 1, VTL_BOTH, b0, b1) * 1e-9;
        place(l, -1, b0 * tl->width, b1 * tl->width);
    }
    fputs("]}", l->out);
}

int speedscope_time_profiles(const cube_profile *p, const view_opts *o, FILE *out)
{
    timeline tl;
    if (vtl_load(p, o, &tl) <= 0)
        return 0;
    lay l = { p,   &tl, tl.npaths < SPEEDSCOPE_TIME_PATHS ? tl.npaths : SPEEDSCOPE_TIME_PATHS, NULL, NULL,
              out, 1 };
    l.up = malloc(sizeof *l.up * ((size_t)l.n + 1));
    l.len = malloc(sizeof *l.len * ((size_t)l.n + 1));
    int n = l.up && l.len ? 0 : -1;
    if (n == 0) {
        find_callers(&l);
        for (int r = 0; r < tl.nranks && r < SPEEDSCOPE_TIME_RANKS; r++, n++)
            rank_profile(&l, r);
    }
    free(l.up), free(l.len);
    vtl_free(&tl);
    return n;
}
