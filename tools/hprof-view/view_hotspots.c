/*
 * view_hotspots.c - a short ranked list of findings computed from the
 * profile, each with the view that shows the details:
 *   - the most expensive MPI call paths;
 *   - call paths with a high imbalance, and the rank behind it;
 *   - what the waiting ranks wait for: the rank with the least time in the
 *     heaviest MPI call path is the one the others wait on; its call path
 *     with the largest excess over the other ranks' mean is the cause;
 *   - a large share of failed unwinds or calls not unwound;
 *   - the heaviest computation;
 *   - from the timeline (hprof files): stretches where a rank computes
 *     much longer than the others, under the heaviest path that explains
 *     it (vtl_findings.c); --phase restricts them to one phase.
 * Findings are ordered by the share of the total time they concern.
 */
#include "tools/hprof-view/vtree.h"
#include "tools/hprof-view/view_stats.h"
#include "tools/hprof-view/vtl_data.h"
#include "tools/hprof-view/vtl_findings.h"
#include "tools/hprof-view/view_width.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FINDINGS 64

typedef struct finding {
    double score;
    char text[2048];
    char see[512];
} finding;

typedef struct hot {
    vtree *t;
    const view_opts *o;
    int tm;
    double total;
    finding f[MAX_FINDINGS];
    int n;
    int columns; /* lines fit this width: paths are elided */
    char pbuf[1024];
} hot;

static void add(hot *h, double score, const char *see, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void add(hot *h, double score, const char *see, const char *fmt, ...)
{
    if (h->n >= MAX_FINDINGS)
        return;
    finding *f = &h->f[h->n++];
    f->score = score;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->text, sizeof f->text, fmt, ap);
    va_end(ap);
    snprintf(f->see, sizeof f->see, "%s", see);
}

/* The call path of v on one line of its own (the findings wrap around it). */
static const char *path(hot *h, int v)
{
    size_t max = h->columns > 24 ? (size_t)h->columns - 10 : 14;
    return view_path_fit(h->t, v, max < sizeof h->pbuf ? max : sizeof h->pbuf - 1, h->pbuf, sizeof h->pbuf);
}

static const char *fmt_time(hot *h, char *buf, size_t len, double v)
{
    return view_fmt(buf, len, &h->t->p->metrics[h->tm], v);
}

static int rank_no(hot *h, int proc)
{
    return h->t->p->procs[proc].rank;
}

/* Quotes a region name as a --focus regex (escaping regex specials). */
static const char *focus_arg(const char *name, char *buf, size_t len)
{
    size_t k = 0;
    if (len < 8)
        return "";
    buf[k++] = '\'';
    buf[k++] = '^';
    for (const char *s = name; *s && k + 6 < len; s++) {
        if (strchr(".[]()*+?{}|^$\\", *s))
            buf[k++] = '\\';
        if (*s == '\'') {
            memcpy(buf + k, "'\\''", 4);
            k += 4;
            continue;
        }
        buf[k++] = *s;
    }
    buf[k++] = '$';
    buf[k++] = '\'';
    buf[k] = '\0';
    return buf;
}

static int is_setup(const char *name)
{
    return strncmp(name, "MPI_Init", 8) == 0 || strcmp(name, "MPI_Finalize") == 0;
}

static void mpi_findings(hot *h, int *top, int *waited)
{
    vtree *t = h->t;
    int n = view_top_nodes(t, t->vm[h->tm].incl, 1, t->nv, top);
    /* where ranks wait: the heaviest MPI path (not start-up or shutdown)
     * where some rank spends clearly less than the mean */
    *waited = -1;
    for (int i = 0; i < n && *waited < 0 && view_share(t->vm[h->tm].incl[top[i]], h->total) >= 5; i++) {
        rank_stats st;
        rank_stats_of(t, h->tm, top[i], 1, &st);
        if (!is_setup(vt_name(t, top[i])) && st.mean > 0 && (st.mean - st.min) / st.mean >= 0.2)
            *waited = top[i];
    }
    n = n < 3 ? n : 3;
    for (int i = 0; i < n; i++) {
        int v = top[i];
        double x = t->vm[h->tm].incl[v], s = view_share(x, h->total);
        if (s < 5 && i > 0)
            break;
        rank_stats st;
        rank_stats_of(t, h->tm, v, 1, &st);
        char a[32], b[32], c[32];
        add(h, s, "hprof-view --mpi",
            "MPI: %s takes %.1f%% of the time (%s over all ranks; per rank %s on rank %d to %s on rank %d)",
            path(h, v), s, fmt_time(h, a, sizeof a, x), fmt_time(h, b, sizeof b, st.min),
            rank_no(h, st.min_rank), fmt_time(h, c, sizeof c, st.max), rank_no(h, st.max_rank));
    }
}

static void imbalance_findings(hot *h, int *top)
{
    vtree *t = h->t;
    int n = view_top_nodes(t, t->vm[h->tm].excl, 0, 20, top), found = 0;
    for (int i = 0; i < n && found < 3; i++) {
        int v = top[i];
        rank_stats st;
        rank_stats_of(t, h->tm, v, 0, &st);
        double s = view_share(st.sum, h->total);
        if (st.imbalance < 0.2 || s < 2 || t->p->nprocs < 2)
            continue;
        char a[32], b[32];
        add(h, s * st.imbalance + 0.001, "hprof-view --ranks",
            "imbalance %.0f%% at %s: rank %d spends %s there, the mean rank %s (%.1f%% of the time)",
            100 * st.imbalance, path(h, v), rank_no(h, st.max_rank), fmt_time(h, a, sizeof a, st.max),
            fmt_time(h, b, sizeof b, st.mean), s);
        found++;
    }
}

/* The rank with the least time in the heaviest MPI path is the one the
 * others wait on; name its path with the largest excess. */
static void waiting_finding(hot *h, int mpi_v)
{
    vtree *t = h->t;
    const cube_profile *p = t->p;
    if (mpi_v < 0 || p->nprocs < 2)
        return;
    rank_stats st;
    rank_stats_of(t, h->tm, mpi_v, 1, &st);
    if (st.mean <= 0 || (st.mean - st.min) / st.mean < 0.2 || view_share(st.sum, h->total) < 5)
        return;
    int w = st.min_rank, best = -1;
    double best_excess = 0, best_val = 0;
    for (int v = 0; v < t->nv; v++) {
        if (t->v[v].is_mpi || !t->v[v].in_focus)
            continue;
        double mine = vt_proc_value(t, h->tm, v, w, 0), others = 0;
        for (int i = 0; i < p->nprocs; i++)
            if (i != w)
                others += vt_proc_value(t, h->tm, v, i, 0);
        double excess = mine - others / (p->nprocs - 1);
        if (excess > best_excess)
            best_excess = excess, best = v, best_val = mine;
    }
    char a[32], b[32], c[32], d[32], see[600], fa[400];
    if (best < 0) {
        snprintf(see, sizeof see, "hprof-view --rank %d", rank_no(h, w));
        add(h, view_share(st.sum - st.min * p->nprocs, h->total), see,
            "waiting: ranks wait in %s for rank %d (%s there, the mean rank %s)", vt_name(t, mpi_v),
            rank_no(h, w), fmt_time(h, a, sizeof a, st.min), fmt_time(h, b, sizeof b, st.mean));
        return;
    }
    snprintf(see, sizeof see, "hprof-view --rank %d --focus %s", rank_no(h, w),
             focus_arg(vt_name(t, best), fa, sizeof fa));
    add(h, view_share(st.sum, h->total) + 0.01, see,
        "waiting: ranks wait in %s for rank %d (%s there, the mean rank %s); rank %d meanwhile spends %s "
        "(%s more than the other ranks' mean) in %s",
        vt_name(t, mpi_v), rank_no(h, w), fmt_time(h, a, sizeof a, st.min), fmt_time(h, b, sizeof b, st.mean),
        rank_no(h, w), fmt_time(h, c, sizeof c, best_val), fmt_time(h, d, sizeof d, best_excess),
        path(h, best));
}

static void unwind_findings(hot *h)
{
    vtree *t = h->t;
    for (int r = 0; r < t->nroots; r++) {
        int v = t->roots[r];
        const char *nm = vt_name(t, v);
        double s = view_share(t->vm[h->tm].incl[v], h->total);
        if (strcmp(nm, "(unwind failed)") == 0 && s >= 5)
            add(h, s, "hprof-view (the '(unwind failed)' root of the tree)",
                "unwinding: %.1f%% of the time could not be given a call path (unwind failed)", s);
        else if (strcmp(nm, "(not unwound)") == 0 && s >= 10)
            add(h, s, "hprof-view (the '(not unwound)' root; HPROF_NOUNWIND)",
                "unwinding: %.1f%% of the time is in MPI calls that were not unwound", s);
    }
    const char *cnt = cube_attr_get(t->p, "hprof::samples_counted");
    const char *fail = cube_attr_get(t->p, "hprof::samples_unwind_failed");
    if (cnt && fail && atof(cnt) + atof(fail) > 0) {
        double s = 100.0 * atof(fail) / (atof(cnt) + atof(fail));
        if (s >= 5)
            add(h, s, "hprof-view --header", "unwinding: %.1f%% of the samples failed to unwind", s);
    }
}

static void computation_finding(hot *h, int *top)
{
    vtree *t = h->t;
    int n = view_top_nodes(t, t->vm[h->tm].excl, 0, t->nv, top);
    for (int i = 0; i < n; i++) {
        int v = top[i];
        if (t->v[v].is_mpi)
            continue;
        double s = view_share(t->vm[h->tm].excl[v], h->total);
        char a[32];
        add(h, s, "hprof-view --flat",
            "computation: the heaviest non-MPI call path is %s with %.1f%% of the time (%s exclusive)",
            path(h, v), s, fmt_time(h, a, sizeof a, t->vm[h->tm].excl[v]));
        return;
    }
}

/* tl: loaded, or npaths/nb 0 without a timeline. */
static void timeline_findings(hot *h, const timeline *tl)
{
    vtl_stretch s[8];
    int n = tl->nranks ? vtl_slow_stretches(tl, h->t->p, s, 8) : 0;
    double scale = strcmp(h->t->p->metrics[h->tm].uniq_name, "time") == 0 ? 1 : 0;
    char see[600], from[64], name[512];
    snprintf(see, sizeof see, "hprof-view --timeline%s%s %s", h->o->phase ? " --phase " : "",
             h->o->phase ? h->o->phase : "", h->o->path);
    for (int i = 0; i < n; i++) {
        if (s[i].b1 >= tl->b1 - 1)
            snprintf(from, sizeof from, "from %.3f s on", s[i].b0 * tl->width);
        else
            snprintf(from, sizeof from, "from %.3f s to %.3f s", s[i].b0 * tl->width, s[i].b1 * tl->width);
        double score = h->total > 0 ? scale * s[i].excess / h->total : 0;
        if (s[i].path >= 0)
            vtl_path_label(h->t->p, tl, s[i].path, name, sizeof name);
        if (s[i].path >= 0 && isfinite(s[i].path_ratio))
            add(h, score, see, "%s, rank %d spends %.1fx the mean of the other ranks in computation under %s",
                from, s[i].rank, s[i].path_ratio, name);
        else if (s[i].path >= 0)
            add(h, score, see, "%s, rank %d computes under %s while the other ranks do not", from, s[i].rank,
                name);
        else
            add(h, score, see, "%s, rank %d computes %.1fx the mean of the other ranks", from, s[i].rank,
                s[i].ratio);
    }
}

static int by_score(const void *a, const void *b)
{
    const finding *x = a, *y = b;
    return (x->score < y->score) - (x->score > y->score);
}

int view_hotspots(cube_profile *p, const view_opts *o, FILE *out)
{
    vtree t;
    hot h = { .t = &t, .o = o, .tm = view_main_metric(p, o), .columns = view_columns() };
    timeline tl;
    int got = vtl_load(p, o, &tl);
    if (got == -2)
        return VIEW_BAD_USAGE;
    if (o->phase && got <= 0) {
        snprintf(o->err, o->errlen, "--phase: this profile has no timeline%s",
                 got < 0 ? " that can be read" : "");
        return VIEW_BAD_USAGE;
    }
    int rc = vt_build(&t, p, o);
    int *top = malloc(sizeof *top * (size_t)(p->ncnodes + 1));
    if (rc == 0 && !top)
        rc = VIEW_FAILED;
    if (rc == 0 && h.tm < 0) {
        snprintf(o->err, o->errlen, "no metric to show");
        rc = VIEW_BAD_USAGE;
    }
    if (rc == 0)
        rc = vt_metric_locs(&t, h.tm);
    if (rc == 0)
        rc = vt_header_width(&t, out, h.columns);
    if (rc == 0) {
        h.total = vt_total(&t, h.tm);
        int heaviest_mpi;
        mpi_findings(&h, top, &heaviest_mpi);
        if (o->rank < 0) {
            imbalance_findings(&h, top);
            waiting_finding(&h, heaviest_mpi);
        }
        unwind_findings(&h);
        computation_finding(&h, top);
        if (o->rank < 0)
            timeline_findings(&h, &tl);
        qsort(h.f, (size_t)h.n, sizeof *h.f, by_score);
        char title[256], head[64];
        snprintf(head, sizeof head, "%shotspots%s ", view_c(o, C_BOLD), view_c(o, C_RESET));
        snprintf(title, sizeof title, "(by %s, ranked by the share of the total they concern)",
                 p->metrics[h.tm].uniq_name);
        fputc('\n', out);
        view_print_wrapped(out, head, 0, title, h.columns, "", "");
        int n = h.n < o->top ? h.n : o->top;
        for (int i = 0; i < n; i++) {
            char num[16];
            snprintf(num, sizeof num, "%2d. ", i + 1);
            view_print_wrapped(out, num, 4, h.f[i].text, h.columns, i == 0 ? view_c(o, C_BOLD) : "",
                               i == 0 ? view_c(o, C_RESET) : "");
            view_print_wrapped(out, "    see: ", 9, h.f[i].see, h.columns, view_c(o, C_CYAN),
                               view_c(o, C_RESET));
        }
        if (n == 0)
            fprintf(out, "(no findings: the profile holds no %s)\n", p->metrics[h.tm].uniq_name);
    }
    free(top);
    vt_free(&t);
    if (got > 0)
        vtl_free(&tl);
    return rc;
}
