/*
 * view_header.c - what was measured (hprof's run attributes, or what a
 * Score-P file says about itself), the split of the total time, and the
 * effective sampling interval histogram (--intervals).
 */
#include "tools/hprof-view/vtree.h"
#include "tools/hprof-view/view_exact.h"
#include "tools/hprof-view/view_reduced.h"
#include "tools/hprof-view/view_width.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NHIST 41

static double root_named(const vtree *t, int m, const char *name)
{
    double s = 0;
    for (int r = 0; r < t->nroots; r++)
        if (strcmp(vt_name(t, t->roots[r]), name) == 0)
            s += t->vm[m].incl[t->roots[r]];
    return s;
}

/* Where the next piece of a line of n bytes goes after snprintf said it
 * wrote `wrote` bytes at k: never past its last byte (a piece cut short
 * ends the line). */
static size_t line_end(size_t n, size_t k, int wrote)
{
    size_t end = k + (wrote > 0 ? (size_t)wrote : 0);
    return end < n ? end : n - 1;
}

/* "time: total 85.0000 s, computation 48.7500 s (57.4%), MPI ...", wrapped
 * at width columns (0: one line). */
static int split_line(vtree *t, FILE *out, int width)
{
    cube_profile *p = t->p;
    int tm = view_metric(p, "time"), comp = view_metric(p, "comp_time"), mpi = view_metric(p, "mpi_time");
    if (tm < 0 || (comp < 0 && mpi < 0))
        return 0; /* not an hprof profile: nothing to split */
    int rc = vt_metric(t, tm);
    if (rc == 0 && comp >= 0)
        rc = vt_metric(t, comp);
    if (rc == 0 && mpi >= 0)
        rc = vt_metric(t, mpi);
    if (rc)
        return rc;
    const view_opts *o = t->o;
    double total = vt_total(t, tm);
    char line[512];
    /* k stays inside line: a damaged file's total (1e300 s) prints longer than it */
    size_t k = line_end(sizeof line, 0, snprintf(line, sizeof line, "total %.4f s", total));
    const int parts[2] = { comp, mpi };
    static const char *const names[2] = { "computation", "MPI" };
    for (int i = 0; i < 2; i++) {
        if (parts[i] < 0)
            continue;
        double v = vt_total(t, parts[i]);
        k = line_end(sizeof line, k,
                     snprintf(line + k, sizeof line - k, ",%c%s %.4f s (%.1f%%)", i ? ' ' : VIEW_NBSP,
                              names[i], v, view_share(v, total)));
    }
    static const char *const roots[] = { "(unwind failed)", "(not unwound)" };
    static const char *const shown[] = { "(unwind\001failed)\001", "(not\001unwound)\001" };
    for (int i = 0; i < 2; i++)
        k = line_end(sizeof line, k,
                     snprintf(line + k, sizeof line - k, ", %s%.1f%%", shown[i],
                              view_share(root_named(t, tm, roots[i]), total)));
    char label[64];
    snprintf(label, sizeof label, "%stime:%s ", view_c(o, C_BOLD), view_c(o, C_RESET));
    view_print_wrapped(out, label, 6, line, width > 0 ? width : 1 << 30, "", "");
    return 0;
}

static void attr_line(const cube_profile *p, FILE *out, const char *label, const char *key)
{
    const char *v = cube_attr_get(p, key);
    if (v && v[0])
        fprintf(out, "%-10s %s\n", label, v);
}

/* A reduced file's locations stand for the ranks (view_reduced.h): which
 * the values are, and how --rank picks the others. */
static void reduced_line(const cube_profile *p, const view_opts *o, FILE *out)
{
    int shown = o->rank >= 0 ? o->rank : VIEW_REDUCED_SUM;
    fprintf(out, "%-10s reduced: values of %s;", "ranks",
            shown < p->nprocs && p->procs[shown].name ? p->procs[shown].name : "?");
    for (int i = 0; i < p->nprocs; i++)
        if (i != shown)
            fprintf(out, " --rank %d: %s%s", p->procs[i].rank, p->procs[i].name ? p->procs[i].name : "?",
                    i + 1 < p->nprocs && !(i + 2 == p->nprocs && shown == p->nprocs - 1) ? "," : "");
    fputc('\n', out);
}

int vt_header(vtree *t, FILE *out)
{
    return vt_header_width(t, out, 0);
}

int vt_header_width(vtree *t, FILE *out, int width)
{
    cube_profile *p = t->p;
    const view_opts *o = t->o;
    int maxthreads = 0;
    for (int l = 0; l < p->nlocs; l++)
        if (p->locs[l].thread + 1 > maxthreads)
            maxthreads = p->locs[l].thread + 1;
    char first[128];
    snprintf(first, sizeof first, "%d processes, %d locations, %d call paths", p->nprocs, p->nlocs,
             p->ncnodes);
    fprintf(out, "%s%s%s:", view_c(o, C_BOLD), o->path, view_c(o, C_RESET));
    view_print_wrapped(out, " ", 4, first, width > 0 ? width - (int)strlen(o->path) - 1 : 1 << 30, "", "");
    const char *ver = cube_attr_get(p, "hprof::version");
    if (ver) {
        attr_line(p, out, "command", "hprof::command");
        if (view_reduced_file(p))
            reduced_line(p, o, out);
        else
            fprintf(out, "%-10s %d ranks, %d threads in all (up to %d per rank)\n", "ranks", p->nprocs,
                    p->nlocs, maxthreads);
        attr_line(p, out, "partial", "hprof::partial");
        const char *hz = cube_attr_get(p, "hprof::sampling_hz"),
                   *clk = cube_attr_get(p, "hprof::sampling_clock");
        if (hz) {
            if (strcmp(hz, "0") == 0)
                fprintf(out, "%-10s off\n", "sampling");
            else
                fprintf(out, "%-10s %s Hz, %s clock", "sampling", hz, clk ? clk : "?");
            const char *cnt = cube_attr_get(p, "hprof::samples_counted");
            if (strcmp(hz, "0") != 0 && cnt) {
                const char *mpi = cube_attr_get(p, "hprof::samples_in_mpi");
                const char *drop = cube_attr_get(p, "hprof::samples_dropped");
                const char *fail = cube_attr_get(p, "hprof::samples_unwind_failed");
                fprintf(out, "; samples: %s counted, %s in MPI, %s dropped, %s failed to unwind", cnt,
                        mpi ? mpi : "?", drop ? drop : "?", fail ? fail : "?");
            }
            if (strcmp(hz, "0") != 0)
                fputc('\n', out);
        }
        attr_line(p, out, "date", "hprof::date");
        fprintf(out, "%-10s hprof %s\n", "version", ver);
    } else {
        const char *creator = cube_attr_get(p, "Creator");
        if (!creator) /* cubelib's tools (cube_cut, cube_remap2, ...) name only themselves so */
            creator = cube_attr_get(p, "CUBE Library version");
        fprintf(out, "%-10s %s (CUBE %s)\n", "written by", creator ? creator : "unknown tool",
                p->version ? p->version : "?");
        if (view_reduced_file(p))
            reduced_line(p, o, out);
        else
            fprintf(out, "%-10s %d ranks, %d threads in all (up to %d per rank)\n", "ranks", p->nprocs,
                    p->nlocs, maxthreads);
    }
    if (o->rank >= 0)
        fprintf(out, "%-10s rank %d only\n", "showing", o->rank);
    int rc = view_exact_lines(t, out);
    return rc ? rc : split_line(t, out, width);
}

int view_header_only(cube_profile *p, const view_opts *o, FILE *out)
{
    vtree t;
    int rc = vt_build(&t, p, o);
    if (rc == 0)
        rc = vt_header(&t, out);
    vt_free(&t);
    return rc;
}

/* Parses NHIST counts; 0 on success. */
static int parse_hist(const char *s, double *h)
{
    char *end;
    for (int i = 0; i < NHIST; i++) {
        h[i] = strtod(s, &end);
        if (end == s || !isfinite(h[i]) || h[i] < 0)
            return -1;
        s = end;
    }
    return 0;
}

static void hist_stats(const double *h, double *n, double *mean, double *p95)
{
    double sum = 0, w = 0;
    for (int i = 0; i < NHIST; i++) {
        sum += h[i];
        w += h[i] * (i == NHIST - 1 ? 5.0 : (i + 0.5) / 8);
    }
    *n = sum;
    *mean = sum > 0 ? w / sum : 0;
    double acc = 0;
    *p95 = 0;
    for (int i = 0; i < NHIST && sum > 0; i++) {
        acc += h[i];
        if (acc >= 0.95 * sum) {
            *p95 = i == NHIST - 1 ? 5.0 : (i + 1) / 8.0;
            break;
        }
    }
}

int view_intervals(cube_profile *p, const view_opts *o, FILE *out)
{
    const char *s = cube_attr_get(p, "hprof::interval_histogram");
    double h[NHIST];
    if (!s || parse_hist(s, h) < 0) {
        snprintf(o->err, o->errlen,
                 "--intervals: the profile has no interval histogram (hprof::interval_histogram)");
        return VIEW_BAD_USAGE;
    }
    const char *hz = cube_attr_get(p, "hprof::sampling_hz");
    double nominal = hz ? atof(hz) : 0;
    double n, mean, p95, max = 0;
    hist_stats(h, &n, &mean, &p95);
    int last = 0;
    for (int i = 0; i < NHIST; i++) {
        if (h[i] > max)
            max = h[i];
        if (h[i] > 0)
            last = i;
    }
    fprintf(out, "%s: effective sampling interval / nominal interval", o->path);
    if (nominal > 0)
        fprintf(out, " (%.0f Hz: %.3f ms)", nominal, 1e3 / nominal);
    fprintf(out, ", %.0f samples\n", n);
    fprintf(out, "%-14s %10s %6s\n", "interval/nom.", "samples", "%");
    for (int i = 0; i < NHIST; i++) {
        if (i > last && i != NHIST - 1)
            continue;
        char range[32];
        if (i == NHIST - 1)
            snprintf(range, sizeof range, ">= 5");
        else
            snprintf(range, sizeof range, "[%.3f,%.3f)", i / 8.0, (i + 1) / 8.0);
        int bar = max > 0 ? (int)lround(40.0 * h[i] / max) : 0;
        fprintf(out, "%-14s %10.0f %5.1f%% %s", range, h[i], view_share(h[i], n), view_c(o, C_CYAN));
        for (int b = 0; b < bar; b++)
            fputc('#', out);
        fprintf(out, "%s\n", view_c(o, C_RESET));
    }
    fprintf(out, "mean %.3f, p95 %.3f (x nominal interval)\n", mean, p95);
    int header = 0;
    for (int r = 0; r < (1 << 20); r++) {
        char key[64];
        snprintf(key, sizeof key, "hprof::interval_histogram::rank::%d", r);
        const char *rs = cube_attr_get(p, key);
        if (!rs)
            break;
        double rh[NHIST], rn, rmean, rp95;
        if (parse_hist(rs, rh) < 0)
            continue;
        hist_stats(rh, &rn, &rmean, &rp95);
        if (!header++)
            fprintf(out, "\n%6s %10s %8s %8s\n", "rank", "samples", "mean", "p95");
        fprintf(out, "%6d %10.0f %8.3f %8.3f\n", r, rn, rmean, rp95);
    }
    return 0;
}
