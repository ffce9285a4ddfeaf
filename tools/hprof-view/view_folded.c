/*
 * view_folded.c - collapsed stacks, the input of flame graph tools
 * (flamegraph.pl, inferno, speedscope): one line per call path with a
 * nonzero exclusive value, "main;solve;MPI_Allreduce 1234". Values are
 * whole numbers: metrics in seconds are written in microseconds, others
 * rounded. A ';' inside a name becomes ':' and line breaks become spaces,
 * so every line splits cleanly. Lines come in call tree (pre)order.
 */
#include "vtree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void put_name(FILE *out, const char *s)
{
    for (; *s; s++)
        fputc(*s == ';' ? ':' : (*s == '\n' || *s == '\r') ? ' ' : *s, out);
}

static void put_path(FILE *out, const vtree *t, int v, int *chain)
{
    int n = 0;
    for (int a = v; a >= 0; a = t->v[a].parent)
        chain[n++] = a;
    for (int i = n - 1; i >= 0; i--) {
        put_name(out, vt_name(t, chain[i]));
        if (i)
            fputc(';', out);
    }
}

int view_folded(cube_profile *p, const view_opts *o, FILE *out)
{
    vtree t;
    int rc = vt_build(&t, p, o), m = view_main_metric(p, o);
    int *chain = malloc(sizeof *chain * ((size_t)p->ncnodes + 1));
    if (rc == 0 && !chain)
        rc = VIEW_FAILED;
    if (rc == 0 && m < 0) {
        snprintf(o->err, o->errlen, "no metric to show");
        rc = VIEW_BAD_USAGE;
    }
    if (rc == 0)
        rc = vt_metric(&t, m);
    if (rc == 0) {
        const cube_metric *mt = &p->metrics[m];
        double scale = mt->uom && strcmp(mt->uom, "sec") == 0 ? 1e6 : 1;
        for (int v = 0; v < t.nv; v++) {
            if (!t.v[v].in_focus)
                continue;
            double x = llround(t.vm[m].excl[v] * scale);
            if (x <= 0 || !isfinite(x))    /* flame graphs take positive counts */
                continue;
            put_path(out, &t, v, chain);
            fprintf(out, " %.0f\n", x);
        }
    }
    free(chain);
    vt_free(&t);
    return rc;
}
