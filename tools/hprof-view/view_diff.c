/*
 * view_diff.c - two profiles compared call path by call path. Paths are
 * matched by their region names from the root (not by ids, which differ
 * between runs); paths with the same names are summed. Rows are sorted by
 * the absolute change of the exclusive value (where the time moved), with
 * the inclusive change beside it.
 */
#include "vtree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct drow { char *path; double ex[2], in[2]; int present[2]; } drow;

static int by_path(const void *a, const void *b)
{
    return strcmp(((const drow *)a)->path, ((const drow *)b)->path);
}

static int by_change(const void *a, const void *b)
{
    const drow *x = a, *y = b;
    double dx = fabs(x->ex[1] - x->ex[0]), dy = fabs(y->ex[1] - y->ex[0]);
    if (dx != dy)
        return dx < dy ? 1 : -1;
    double ix = fabs(x->in[1] - x->in[0]), iy = fabs(y->in[1] - y->in[0]);
    if (ix != iy)
        return ix < iy ? 1 : -1;
    return strcmp(x->path, y->path);
}

/* Appends the in-focus vnodes of t as rows of side s. */
static int collect(vtree *t, int m, int s, drow *rows, int *n)
{
    char *buf = NULL;
    size_t cap = 0;
    for (int v = 0; v < t->nv; v++) {
        if (!t->v[v].in_focus)
            continue;
        const char *ps = vt_path(t, v, ";", &buf, &cap);
        char *copy = ps ? strdup(ps) : NULL;
        if (!copy) {
            free(buf);
            return VIEW_FAILED;
        }
        drow *r = &rows[(*n)++];
        memset(r, 0, sizeof *r);
        r->path = copy;
        r->ex[s] = t->vm[m].excl[v];
        r->in[s] = t->vm[m].incl[v];
        r->present[s] = 1;
    }
    free(buf);
    return 0;
}

/* Sorts by path and merges rows with the same path (either side). */
static int merge_rows(drow *rows, int n)
{
    qsort(rows, (size_t)n, sizeof *rows, by_path);
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (k > 0 && strcmp(rows[k - 1].path, rows[i].path) == 0) {
            for (int s = 0; s < 2; s++) {
                rows[k - 1].ex[s] += rows[i].ex[s];
                rows[k - 1].in[s] += rows[i].in[s];
                rows[k - 1].present[s] |= rows[i].present[s];
            }
            free(rows[i].path);
        } else {
            rows[k++] = rows[i];
        }
    }
    return k;
}

static void print_change(FILE *out, const view_opts *o, double a, double b, int present_a, int present_b)
{
    double d = b - a;
    const char *c = d > 0 ? C_RED : d < 0 ? C_GREEN : NULL;
    fprintf(out, "%s%+13.6f%s ", c ? view_c(o, c) : "", d, c ? view_c(o, C_RESET) : "");
    if (!present_a)
        fprintf(out, "%8s ", "new");
    else if (!present_b)
        fprintf(out, "%8s ", "gone");
    else if (a != 0)
        fprintf(out, "%+7.1f%% ", 100 * d / fabs(a));
    else
        fprintf(out, "%8s ", d ? "inf" : "0");
}

int view_diff(cube_profile *p, const view_opts *o, FILE *out)
{
    vtree ta, tb;
    int m = view_main_metric(p, o), mb = -1;
    int rc = vt_build(&ta, p, o), rcb = vt_build(&tb, o->pb, o);
    drow *rows = NULL;
    int n = 0;
    if (rc == 0 && rcb != 0) {
        if (rcb == VIEW_BAD_USAGE) {    /* say which file */
            char tmp[512];
            snprintf(tmp, sizeof tmp, "%s", o->err);
            snprintf(o->err, o->errlen, "@%s", tmp);
        }
        rc = rcb;
    }
    if (rc == 0 && m < 0) {
        snprintf(o->err, o->errlen, "no metric to compare");
        rc = VIEW_BAD_USAGE;
    }
    if (rc == 0 && (mb = view_metric(o->pb, p->metrics[m].uniq_name)) < 0) {
        snprintf(o->err, o->errlen, "@%s: no metric %s to compare", o->path_b, p->metrics[m].uniq_name);
        rc = VIEW_BAD_USAGE;
    }
    if (rc == 0)
        rc = vt_metric(&ta, m);
    if (rc == 0 && (rc = vt_metric(&tb, mb)) == VIEW_BAD_FILE) {
        char tmp[512];
        snprintf(tmp, sizeof tmp, "%s", o->err);
        snprintf(o->err, o->errlen, "@%s", tmp);
    }
    if (rc == 0 && !(rows = malloc(sizeof *rows * ((size_t)ta.nv + (size_t)tb.nv + 1))))
        rc = VIEW_FAILED;
    if (rc == 0)
        rc = collect(&ta, m, 0, rows, &n);
    if (rc == 0)
        rc = collect(&tb, mb, 1, rows, &n);
    if (rc == 0) {
        n = merge_rows(rows, n);
        qsort(rows, (size_t)n, sizeof *rows, by_change);
        const cube_metric *mt = &p->metrics[m];
        double a = vt_total(&ta, m), b = vt_total(&tb, mb);
        fprintf(out, "%sdiff of %s%s%s: before %s, after %s\n", view_c(o, C_BOLD), mt->uniq_name,
                o->rank >= 0 ? " (one rank)" : "", view_c(o, C_RESET), o->path, o->path_b);
        fprintf(out, "total: before %.6f, after %.6f, change %+.6f (%+.1f%%)\n", a, b, b - a,
                a != 0 ? 100 * (b - a) / fabs(a) : 0.0);
        fprintf(out, "%13s %13s %13s %8s %13s %13s %13s %8s  %s\n", "excl before", "excl after", "change",
                "rel", "incl before", "incl after", "change", "rel", "call path");
        int shown = 0;
        for (int i = 0; i < n && shown < o->top; i++) {
            drow *r = &rows[i];
            if (r->ex[0] == r->ex[1] && r->in[0] == r->in[1])
                continue;
            fprintf(out, "%13.6f %13.6f ", r->ex[0], r->ex[1]);
            print_change(out, o, r->ex[0], r->ex[1], r->present[0], r->present[1]);
            fprintf(out, "%13.6f %13.6f ", r->in[0], r->in[1]);
            print_change(out, o, r->in[0], r->in[1], r->present[0], r->present[1]);
            fprintf(out, " %s\n", r->path);
            shown++;
        }
        if (!shown)
            fprintf(out, "(no call path changed)\n");
    }
    for (int i = 0; i < n; i++)
        free(rows[i].path);
    free(rows);
    vt_free(&ta);
    vt_free(&tb);
    return rc;
}
