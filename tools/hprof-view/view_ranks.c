/*
 * view_ranks.c - load balance: for the whole run and for the heaviest call
 * paths (by exclusive value summed over ranks), the min / mean / max over
 * ranks, the rank of each extreme, the imbalance (max - mean) / max and a
 * strip with one character per rank (scaled to the path's maximum), so
 * that an outlier rank stands out.
 */
#include "tools/hprof-view/vtree.h"
#include "tools/hprof-view/view_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char ramp[] = " .:-=+*#%@";

void rank_stats_of(const vtree *t, int m, int v, int inclusive, rank_stats *s)
{
    const cube_profile *p = t->p;
    memset(s, 0, sizeof *s);
    s->min_rank = s->max_rank = -1;
    for (int i = 0; i < p->nprocs; i++) {
        double x = vt_proc_value(t, m, v, i, inclusive);
        s->sum += x;
        if (s->min_rank < 0 || x < s->min)
            s->min = x, s->min_rank = i;
        if (s->max_rank < 0 || x > s->max)
            s->max = x, s->max_rank = i;
    }
    s->mean = p->nprocs ? s->sum / p->nprocs : 0;
    s->imbalance = s->max > 0 ? (s->max - s->mean) / s->max : 0;
}

void print_strip(const vtree *t, const view_opts *o, int m, int v, int inclusive, double scale, FILE *out)
{
    const cube_profile *p = t->p;
    int n = p->nprocs, cols = n > 64 ? 64 : n;
    fputc('[', out);
    for (int c = 0; c < cols; c++) {
        double x = 0; /* the largest of the ranks in this column */
        for (int i = c * n / cols; i < (c + 1) * n / cols; i++) {
            double y = vt_proc_value(t, m, v, i, inclusive);
            x = i == c * n / cols || y > x ? y : x;
        }
        int k = scale > 0 ? (int)lround(9.0 * x / scale) : 0;
        k = k < 0 ? 0 : k > 9 ? 9 : k;
        if (k == 0 && x > 0)
            k = 1;
        fprintf(out, "%s%c%s", k >= 8 ? view_c(o, C_RED) : "", ramp[k], k >= 8 ? view_c(o, C_RESET) : "");
    }
    fputc(']', out);
}

static void print_row(const vtree *t, const view_opts *o, int m, int v, int inclusive, const char *label,
                      double total, FILE *out, char **pbuf, size_t *pcap)
{
    const cube_profile *p = t->p;
    const cube_metric *mt = &p->metrics[m];
    rank_stats s;
    rank_stats_of(t, m, v, inclusive, &s);
    char a[32], b[32], c[32];
    const char *ic = s.imbalance >= 0.25 ? C_RED : s.imbalance >= 0.1 ? C_YELLOW : NULL;
    fprintf(out, "%5.1f%% %11s %6d %11s %11s %6d %s%5.1f%%%s ", view_share(s.sum, total),
            view_fmt(a, sizeof a, mt, s.min), p->procs[s.min_rank].rank, view_fmt(b, sizeof b, mt, s.mean),
            view_fmt(c, sizeof c, mt, s.max), p->procs[s.max_rank].rank, ic ? view_c(o, ic) : "",
            100 * s.imbalance, ic ? view_c(o, C_RESET) : "");
    print_strip(t, o, m, v, inclusive, s.max, out);
    if (label)
        fprintf(out, "  %s\n", label);
    else {
        char site[512];
        const char *path = vt_path(t, v, " > ", pbuf, pcap);
        vt_site(t, v, site, sizeof site);
        fprintf(out, "  %s%s%s%s%s%s\n", t->v[v].is_mpi ? view_c(o, C_MAGENTA) : "", path ? path : "?",
                view_c(o, C_RESET), site[0] ? " (" : "", site, site[0] ? ")" : "");
    }
}

static const double *key_of;

static int by_key(const void *a, const void *b)
{
    double x = key_of[*(const int *)a], y = key_of[*(const int *)b];
    if (x != y)
        return x < y ? 1 : -1;
    return *(const int *)a - *(const int *)b;
}

int view_top_nodes(const vtree *t, const double *key, int only_mpi, int limit, int *out)
{
    int n = 0;
    for (int v = 0; v < t->nv; v++)
        if (t->v[v].in_focus && key[v] > 0 && (!only_mpi || t->v[v].is_mpi))
            out[n++] = v;
    key_of = key;
    qsort(out, (size_t)n, sizeof *out, by_key);
    return n < limit ? n : limit;
}

int view_ranks(cube_profile *p, const view_opts *o, FILE *out)
{
    vtree t;
    int rc = vt_build(&t, p, o), m = view_main_metric(p, o);
    int *top = malloc(sizeof *top * (size_t)(p->ncnodes + 1));
    char *path = NULL;
    size_t cap = 0;
    if (rc == 0 && !top)
        rc = VIEW_FAILED;
    if (rc == 0 && m < 0) {
        snprintf(o->err, o->errlen, "no metric to show");
        rc = VIEW_BAD_USAGE;
    }
    if (rc == 0 && o->rank >= 0) {
        snprintf(o->err, o->errlen, "--ranks compares all ranks: leave out --rank");
        rc = VIEW_BAD_USAGE;
    }
    if (rc == 0)
        rc = vt_metric_locs(&t, m);
    if (rc == 0)
        rc = vt_header(&t, out);
    if (rc == 0) {
        const cube_metric *mt = &p->metrics[m];
        double total = vt_total(&t, m);
        fprintf(out, "\n%sranks%s: %s over %d ranks; strip: one column per rank%s, ' .:-=+*#%%@' = 0..max\n",
                view_c(o, C_BOLD), view_c(o, C_RESET), mt->uniq_name, p->nprocs,
                p->nprocs > 64 ? " group (their largest value)" : "");
        fprintf(out, "%6s %11s %6s %11s %11s %6s %6s  %s\n", "%", "min", "rank", "mean", "max", "rank",
                "imbal", "strip / call path");
        /* the whole run: the roots */
        for (int r = 0; r < t.nroots; r++)
            if (t.v[t.roots[r]].in_focus && t.vm[m].incl[t.roots[r]] != 0) {
                char label[600];
                snprintf(label, sizeof label, "%s (whole run, inclusive)", vt_name(&t, t.roots[r]));
                print_row(&t, o, m, t.roots[r], 1, label, total, out, &path, &cap);
            }
        fputc('\n', out);
        int n = view_top_nodes(&t, t.vm[m].excl, 0, o->top, top);
        fprintf(out, "heaviest %d call paths by exclusive %s:\n", n, mt->uniq_name);
        for (int i = 0; i < n; i++)
            print_row(&t, o, m, top[i], 0, NULL, total, out, &path, &cap);
    }
    free(top);
    free(path);
    vt_free(&t);
    return rc;
}
