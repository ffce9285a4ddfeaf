/*
 * view_folded.c - collapsed stacks, the input of flame graph tools
 * (flamegraph.pl, inferno, speedscope): one line per call path with a
 * nonzero exclusive value, "main;solve;MPI_Allreduce 1234". Values are
 * whole numbers: metrics in seconds are written in microseconds, others
 * rounded. A ';' inside a name becomes ':' and line breaks become spaces,
 * so every line splits cleanly. Lines come in call tree (pre)order. A
 * path deeper than VT_PATH_FRAMES frames keeps its first and last frames
 * around a "[... N frames ...]" marker.
 */
#include "tools/hprof-view/vtree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void put_name(FILE *out, const char *s)
{
    for (; *s; s++)
        fputc(*s == ';' ? ':' : (*s == '\n' || *s == '\r') ? ' ' : *s, out);
}

/* Deep paths are cut in the middle (vt_path_frames): a line never holds
 * more than VT_PATH_FRAMES names. */
static void put_path(FILE *out, const vtree *t, int v)
{
    int frames[VT_PATH_FRAMES];
    long cut;
    int n = vt_path_frames(t, v, frames, &cut);
    char marker[64];
    for (int i = 0; i < n; i++) {
        put_name(out, frames[i] < 0 ? vt_cut_marker(marker, sizeof marker, cut) : vt_name(t, frames[i]));
        if (i + 1 < n)
            fputc(';', out);
    }
}

int view_folded(cube_profile *p, const view_opts *o, FILE *out)
{
    vtree t;
    int rc = vt_build(&t, p, o), m = view_main_metric(p, o);
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
            if (x <= 0 || !isfinite(x)) /* flame graphs take positive counts */
                continue;
            put_path(out, &t, v);
            fprintf(out, " %.0f\n", x);
        }
    }
    vt_free(&t);
    return rc;
}
