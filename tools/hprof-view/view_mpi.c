/*
 * view_mpi.c - the MPI summary, what a mpiP user reads first: MPI time and
 * its share per rank, the top MPI call sites by time and by bytes sent,
 * and message size statistics per MPI function (bytes per call). Call
 * sites carry an id (as mpiP's) that "--focus site:N" takes; rows that
 * would read alike get more callers until they differ.
 *
 * MPI time: hprof's mpi_time metric where the profile has it, else the
 * time of the outermost MPI call paths (Score-P files).
 */
#include "tools/hprof-view/vtree.h"
#include "tools/hprof-view/view_stats.h"

#include <stdlib.h>
#include <string.h>

/* Outermost MPI vnodes: an MPI call inside an MPI call counts once. */
static int outer_mpi(const vtree *t, int v)
{
    return t->v[v].is_mpi && t->v[v].in_focus && !t->v[v].mpi_caller;
}

/* MPI time and application time of process i (all its threads). */
static void proc_times(const vtree *t, int tm, int mpi, int i, double *app, double *in_mpi)
{
    *app = *in_mpi = 0;
    for (int r = 0; r < t->nroots; r++)
        *app += vt_proc_value(t, tm, t->roots[r], i, 1);
    if (mpi >= 0) {
        for (int r = 0; r < t->nroots; r++)
            *in_mpi += vt_proc_value(t, mpi, t->roots[r], i, 1);
    } else {
        for (int v = 0; v < t->nv; v++)
            if (outer_mpi(t, v))
                *in_mpi += vt_proc_value(t, tm, v, i, 1);
    }
}

static void per_rank(const vtree *t, const view_opts *o, int tm, int mpi, FILE *out)
{
    const cube_profile *p = t->p;
    double sapp = 0, smpi = 0;
    fprintf(out, "%sMPI time per rank%s%s\n", view_c(o, C_BOLD), view_c(o, C_RESET),
            mpi >= 0 ? " (mpi_time)" : " (time in MPI call paths)");
    fprintf(out, "%6s %12s %12s %7s\n", "rank", "app time", "MPI time", "MPI%");
    int n = p->nprocs, shown = 0;
    double lo = 1e300, hi = -1;
    int lo_r = 0, hi_r = 0;
    for (int i = 0; i < n; i++) {
        double app, in;
        proc_times(t, tm, mpi, i, &app, &in);
        sapp += app;
        smpi += in;
        double s = view_share(in, app);
        if (s < lo)
            lo = s, lo_r = i;
        if (s > hi)
            hi = s, hi_r = i;
        if (n <= 64 || i < 8 || i >= n - 4) {
            fprintf(out, "%6d %12.6f %12.6f %6.2f%%\n", p->procs[i].rank, app, in, s);
            shown++;
        } else if (i == 8) {
            fprintf(out, "%6s\n", "...");
        }
    }
    fprintf(out, "%6s %12.6f %12.6f %6.2f%%\n", "*", sapp, smpi, view_share(smpi, sapp));
    if (n > 1)
        fprintf(out, "MPI%% lowest on rank %d (%.2f%%), highest on rank %d (%.2f%%)\n", p->procs[lo_r].rank,
                lo, p->procs[hi_r].rank, hi);
    (void)shown;
}

#define LABEL_LEN 1024

/* "caller > call (site)" with up callers (as many as there are, at most),
 * with sites: each caller with its own call site (file name:line). */
static void site_label(const vtree *t, int v, int up, int sites, char *buf)
{
    int chain[64], n = 0;
    for (int a = t->v[v].parent; a >= 0 && n < up && n < 64; a = t->v[a].parent)
        chain[n++] = a;
    size_t k = 0;
    char site[512];
    buf[0] = '\0';
    for (int i = n - 1; i >= 0 && k < LABEL_LEN; i--) {
        const char *s = sites ? vt_site(t, chain[i], site, sizeof site) : "", *slash = strrchr(s, '/');
        k += (size_t)snprintf(buf + k, LABEL_LEN - k, s[0] ? "%s (%s) > " : "%s > ", vt_name(t, chain[i]),
                              slash ? slash + 1 : s);
    }
    if (k < LABEL_LEN)
        k += (size_t)snprintf(buf + k, LABEL_LEN - k, "%s", vt_name(t, v));
    if (k < LABEL_LEN && vt_site(t, v, site, sizeof site)[0]) {
        const char *slash = strrchr(site, '/'); /* the file name is enough here */
        snprintf(buf + k, LABEL_LEN - k, " (%s)", slash ? slash + 1 : site);
    }
}

static int depth_of(const vtree *t, int v)
{
    int d = 0;
    for (int a = t->v[v].parent; a >= 0; a = t->v[a].parent)
        d++;
    return d;
}

/* Labels of the n rows top[]: one caller each; for rows whose label
 * another row has too (different call paths that end alike), the callers'
 * call sites, then more callers, until they differ or reach the root.
 * labels: n * LABEL_LEN bytes. */
static void row_labels(const vtree *t, const int *top, int n, char *labels)
{
    int up[64];
    char sites[64] = { 0 };
    n = n < 64 ? n : 64;
    for (int i = 0; i < n; i++) {
        up[i] = 1;
        site_label(t, top[i], up[i], 0, labels + (size_t)i * LABEL_LEN);
    }
    for (int changed = 1, round = 0; changed && round < 64; round++) {
        changed = 0;
        char grow[64] = { 0 };
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (i != j && (!sites[i] || up[i] < depth_of(t, top[i])) &&
                    strcmp(labels + (size_t)i * LABEL_LEN, labels + (size_t)j * LABEL_LEN) == 0)
                    grow[i] = 1;
        for (int i = 0; i < n; i++)
            if (grow[i]) {
                if (sites[i])
                    up[i]++;
                sites[i] = 1;
                site_label(t, top[i], up[i], 1, labels + (size_t)i * LABEL_LEN);
                changed = 1;
            }
    }
}

static void top_by_time(const vtree *t, const view_opts *o, int tm, int visits, double app, double mpi_total,
                        int *top, FILE *out)
{
    const cube_profile *p = t->p;
    int n = view_top_nodes(t, t->vm[tm].incl, 1, o->top < 64 ? o->top : 64, top);
    char *labels = malloc((size_t)(n + 1) * LABEL_LEN);
    if (!labels)
        return;
    row_labels(t, top, n, labels);
    fprintf(out, "\n%stop %d MPI call sites by time%s\n", view_c(o, C_BOLD), n, view_c(o, C_RESET));
    fprintf(out, "%3s %12s %7s %7s %10s %11s %6s %6s %5s  %s\n", "#", "time", "app%", "MPI%", "calls",
            "time/call", "imbal", "max@", "site", "caller > call (call site)");
    for (int i = 0; i < n; i++) {
        int v = top[i];
        double tv = t->vm[tm].incl[v], calls = visits >= 0 ? t->vm[visits].excl[v] : 0;
        rank_stats s;
        rank_stats_of(t, tm, v, 1, &s);
        char a[32];
        fprintf(out, "%3d %12.6f %6.2f%% %6.2f%% %10.0f %11s %5.1f%% %6d %5d  %s\n", i + 1, tv,
                view_share(tv, app), view_share(tv, mpi_total), calls,
                calls > 0 ? view_fmt(a, sizeof a, &p->metrics[tm], tv / calls) : "-", 100 * s.imbalance,
                p->procs[s.max_rank].rank, t->v[v].site_id, labels + (size_t)i * LABEL_LEN);
    }
    if (n > 0)
        fprintf(out, "(site: the call tree of one call site: hprof-view --focus site:%d FILE)\n",
                t->v[top[0]].site_id);
    free(labels);
}

static void top_by_bytes(const vtree *t, const view_opts *o, int sent, int visits, int *top, FILE *out)
{
    const cube_profile *p = t->p;
    int n = view_top_nodes(t, t->vm[sent].excl, 1, o->top < 64 ? o->top : 64, top);
    double total = vt_total(t, sent);
    char *labels = malloc((size_t)(n + 1) * LABEL_LEN);
    if (!labels)
        return;
    row_labels(t, top, n, labels);
    fprintf(out, "\n%stop %d MPI call sites by bytes sent%s\n", view_c(o, C_BOLD), n, view_c(o, C_RESET));
    if (n == 0) {
        fprintf(out, "(no bytes sent)\n");
        free(labels);
        return;
    }
    fprintf(out, "%3s %14s %7s %10s %12s %5s  %s\n", "#", "bytes sent", "sent%", "calls", "bytes/call",
            "site", "caller > call (call site)");
    for (int i = 0; i < n; i++) {
        int v = top[i];
        double b = t->vm[sent].excl[v], calls = visits >= 0 ? t->vm[visits].excl[v] : 0;
        char a[32];
        fprintf(out, "%3d %14.0f %6.2f%% %10.0f %12s %5d  %s\n", i + 1, b, view_share(b, total), calls,
                calls > 0 ? view_fmt(a, sizeof a, &p->metrics[sent], b / calls) : "-", t->v[v].site_id,
                labels + (size_t)i * LABEL_LEN);
    }
    free(labels);
}

typedef struct msg_row {
    const char *name;
    double calls, sent, recv, min_avg, max_avg;
    int seen;
} msg_row;

static int by_sent(const void *a, const void *b)
{
    const msg_row *x = a, *y = b;
    if (x->sent + x->recv != y->sent + y->recv)
        return x->sent + x->recv < y->sent + y->recv ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* Bytes per call per MPI function; min/max over call sites and ranks of
 * the mean message size of a (site, rank). */
static int message_sizes(const vtree *t, const view_opts *o, int sent, int recv, int visits, FILE *out)
{
    const cube_profile *p = t->p;
    msg_row *rows = calloc((size_t)p->nregions + 1, sizeof *rows);
    if (!rows)
        return VIEW_FAILED;
    int nrows = 0, *slot = malloc(sizeof *slot * ((size_t)p->nregions + 1)); /* name class -> row */
    if (!slot) {
        free(rows);
        return VIEW_FAILED;
    }
    memset(slot, 0xff, sizeof *slot * ((size_t)p->nregions + 1));
    for (int v = 0; v < t->nv; v++) {
        if (!t->v[v].is_mpi || !t->v[v].in_focus || t->v[v].region < 0)
            continue;
        int cls = t->names.id[t->v[v].region], k = slot[cls];
        if (k < 0)
            rows[k = slot[cls] = nrows++].name = vt_name(t, v);
        msg_row *r = &rows[k];
        double s = sent >= 0 ? t->vm[sent].excl[v] : 0, rv = recv >= 0 ? t->vm[recv].excl[v] : 0;
        r->calls += t->vm[visits].excl[v];
        r->sent += s;
        r->recv += rv;
        for (int i = 0; i < p->nprocs; i++) {
            double c = vt_proc_value(t, visits, v, i, 0);
            double b = (sent >= 0 ? vt_proc_value(t, sent, v, i, 0) : 0) +
                       (recv >= 0 ? vt_proc_value(t, recv, v, i, 0) : 0);
            if (c <= 0 || b <= 0)
                continue;
            double avg = b / c;
            if (!r->seen || avg < r->min_avg)
                r->min_avg = avg;
            if (!r->seen || avg > r->max_avg)
                r->max_avg = avg;
            r->seen = 1;
        }
    }
    qsort(rows, (size_t)nrows, sizeof *rows, by_sent);
    fprintf(out,
            "\n%smessage sizes per MPI function%s (bytes per call; min/max: over call sites and ranks)\n",
            view_c(o, C_BOLD), view_c(o, C_RESET));
    fprintf(out, "%-24s %10s %14s %14s %12s %12s %12s\n", "function", "calls", "bytes sent", "bytes recvd",
            "mean", "min", "max");
    int shown = 0;
    for (int k = 0; k < nrows; k++) {
        msg_row *r = &rows[k];
        if (r->sent + r->recv <= 0)
            continue;
        double mean = r->calls > 0 ? (r->sent + r->recv) / r->calls : 0;
        fprintf(out, "%-24s %10.0f %14.0f %14.0f %12.1f %12.1f %12.1f\n", r->name, r->calls, r->sent, r->recv,
                mean, r->min_avg, r->max_avg);
        shown++;
    }
    if (!shown)
        fprintf(out, "(no bytes counted)\n");
    free(rows), free(slot);
    return 0;
}

int view_mpi(cube_profile *p, const view_opts *o, FILE *out)
{
    vtree t;
    int rc = vt_build(&t, p, o);
    int tm = view_metric(p, "time"), mpi = view_metric(p, "mpi_time"), visits = view_metric(p, "visits");
    int sent = view_metric(p, "bytes_sent"), recv = view_metric(p, "bytes_received");
    int *top = malloc(sizeof *top * (size_t)(p->ncnodes + 1));
    if (rc == 0 && !top)
        rc = VIEW_FAILED;
    if (rc == 0 && tm < 0) {
        rc = vt_header(&t, out);
        if (rc == 0)
            fprintf(out, "\nthe profile has no time metric: no MPI summary\n");
        free(top);
        vt_free(&t);
        return rc;
    }
    const int need[] = { tm, mpi, visits, sent, recv };
    for (int i = 0; i < 5 && rc == 0; i++)
        if (need[i] >= 0)
            rc = vt_metric_locs(&t, need[i]);
    int any = 0;
    for (int v = 0; v < t.nv; v++)
        any |= t.v[v].is_mpi;
    if (rc == 0)
        rc = vt_header(&t, out);
    if (rc == 0 && !any) {
        fprintf(out, "\nno MPI call paths in this profile\n");
    } else if (rc == 0) {
        fputc('\n', out);
        per_rank(&t, o, tm, mpi, out);
        double app = vt_total(&t, tm), mpi_total = 0;
        if (mpi >= 0)
            mpi_total = vt_total(&t, mpi);
        else
            for (int v = 0; v < t.nv; v++)
                if (outer_mpi(&t, v))
                    mpi_total += t.vm[tm].incl[v];
        top_by_time(&t, o, tm, visits, app, mpi_total, top, out);
        if (sent >= 0)
            top_by_bytes(&t, o, sent, visits, top, out);
        if (visits >= 0 && (sent >= 0 || recv >= 0))
            rc = message_sizes(&t, o, sent, recv, visits, out);
    }
    free(top);
    vt_free(&t);
    return rc;
}
