/*
 * view_speedscope.c - speedscope's file format (--speedscope; its
 * file-format-schema.json): one sampled profile per rank, and per thread
 * where a rank has several, each a list of call stacks weighted by their
 * exclusive value of the main metric on that location, so a profile's
 * weights sum to the rank's total. Frames are shared: one per region (its
 * definition's file and line), one per folded group. The call paths are
 * the view tree's (hidden frames folded as in --folded), bounded as the
 * HTML page's (view_export_nodes.h); a stack deeper than VT_PATH_FRAMES
 * keeps its first and last frames around one "[... frames ...]" frame.
 * Where the profile has a timeline and the metric is time, evented
 * profiles of the heaviest paths over time follow (view_speedscope_time.h).
 */
#include "tools/hprof-view/view_export_nodes.h"
#include "tools/hprof-view/view_speedscope_time.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef HPROF_VERSION
#define HPROF_VERSION "unknown"
#endif

/* [node]: its frame; frames are numbered regions first, then the groups,
 * then the marker for cut stacks. */
static int *frame_ids(const export_nodes *e, const vtree *t, int *nframes)
{
    int *id = malloc(sizeof *id * ((size_t)e->h.n + 1));
    if (!id)
        return NULL;
    int next = t->p->nregions;
    for (int k = 0; k < e->h.n; k++) {
        int v = e->h.vnode[k];
        id[k] = v >= 0 && t->v[v].region >= 0 && !t->v[v].label ? t->v[v].region : next++;
    }
    *nframes = next + 1;
    return id;
}

static void put_frame(FILE *out, const char *name, const char *file, long line, int first)
{
    fputs(first ? "\n    {\"name\": " : ",\n    {\"name\": ", out);
    view_print_json_string(out, name);
    if (file && file[0]) {
        fputs(", \"file\": ", out);
        view_print_json_string(out, file);
    }
    if (line > 0)
        fprintf(out, ", \"line\": %ld", line);
    fputc('}', out);
}

static void print_frames(FILE *out, const export_nodes *e, const vtree *t)
{
    const cube_profile *p = t->p;
    char buf[64];
    for (int r = 0; r < p->nregions; r++)
        put_frame(out, t->names.shown[r], p->regions[r].mod, p->regions[r].begin, r == 0);
    for (int k = 0; k < e->h.n; k++) {
        int v = e->h.vnode[k];
        if (v < 0 || t->v[v].region < 0 || t->v[v].label)
            put_frame(out, export_node_name(e, t, k, buf, sizeof buf), NULL, 0, 0);
    }
    put_frame(out, "[... frames ...]", NULL, 0, p->nregions == 0 && e->h.n == 0);
}

/* Node k's stack from its root, cut in the middle past VT_PATH_FRAMES. */
static void put_stack(FILE *out, const export_nodes *e, const int *fid, int marker, int k, int *chain)
{
    int n = 0;
    for (int a = k; a >= 0; a = e->h.parent[a])
        chain[n++] = a;
    fputc('[', out);
    for (int i = n - 1, j = 0; i >= 0; i--, j++) {
        if (n > VT_PATH_FRAMES && j == VT_PATH_HEAD) {
            fprintf(out, ",%d", marker);
            i = VT_PATH_TAIL; /* the loop's i-- leaves the last VT_PATH_TAIL */
            continue;
        }
        fprintf(out, j ? ",%d" : "%d", fid[chain[i]]);
    }
    fputc(']', out);
}

static void print_profile(FILE *out, const export_nodes *e, const vtree *t, int l, const int *fid, int marker,
                          int *chain, int threaded, const char *unit)
{
    const cube_profile *p = t->p;
    const cube_location *loc = &p->locs[l];
    char name[96];
    if (threaded)
        snprintf(name, sizeof name, "rank %d thread %d", p->procs[loc->process].rank, loc->thread);
    else
        snprintf(name, sizeof name, "rank %d", p->procs[loc->process].rank);
    double total = 0;
    for (int k = 0; k < e->h.n; k++) {
        double w = export_value(e, 0, k, l, 0);
        total += w > 0 && isfinite(w) ? w : 0;
    }
    fputs("    {\"type\": \"sampled\", \"name\": ", out);
    view_print_json_string(out, name);
    fprintf(out, ", \"unit\": \"%s\", \"startValue\": 0, \"endValue\": %.17g,\n     \"samples\": [", unit,
            total);
    int first = 1;
    for (int k = 0; k < e->h.n; k++) {
        double w = export_value(e, 0, k, l, 0);
        if (w > 0 && isfinite(w)) {
            fputs(first ? "" : ",", out);
            put_stack(out, e, fid, marker, k, chain);
            first = 0;
        }
    }
    fputs("],\n     \"weights\": [", out);
    first = 1;
    for (int k = 0; k < e->h.n; k++) {
        double w = export_value(e, 0, k, l, 0);
        if (w > 0 && isfinite(w)) {
            fprintf(out, first ? "%.17g" : ",%.17g", w);
            first = 0;
        }
    }
    fputs("]}", out);
}

int view_speedscope(cube_profile *p, const view_opts *o, FILE *out)
{
    int m = view_main_metric(p, o), nframes = 0;
    if (m < 0) {
        snprintf(o->err, o->errlen, "no metric to show");
        return VIEW_BAD_USAGE;
    }
    vtree t;
    export_nodes e;
    int rc = vt_build(&t, p, o);
    if (rc == 0 && (rc = export_nodes_build(&e, &t, &m, 1)) == 0) {
        int *fid = frame_ids(&e, &t, &nframes), *chain = malloc(sizeof *chain * ((size_t)e.h.n + 1));
        int threaded = 0;
        for (int l = 0; l < p->nlocs; l++)
            threaded |= p->locs[l].thread != 0;
        const char *uom = p->metrics[m].uom;
        const char *unit = uom && strcmp(uom, "sec") == 0     ? "seconds"
                           : uom && strcmp(uom, "bytes") == 0 ? "bytes"
                                                              : "none";
        if (fid && chain) {
            fputs("{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\",\n \"name\": ", out);
            view_print_json_string(out, o->path);
            fputs(",\n \"exporter\": \"hprof-view " HPROF_VERSION "\",\n \"activeProfileIndex\": 0,\n"
                  " \"shared\": {\"frames\": [",
                  out);
            print_frames(out, &e, &t);
            fputs("\n ]},\n \"profiles\": [\n", out);
            for (int l = 0; l < p->nlocs; l++) {
                print_profile(out, &e, &t, l, fid, nframes - 1, chain, threaded, unit);
                fputs(l + 1 < p->nlocs ? ",\n" : "", out);
            }
            if (strcmp(unit, "seconds") == 0 && speedscope_time_profiles(p, o, out) < 0)
                rc = VIEW_FAILED;
            fputs("\n ]}\n", out);
            html_nodes_note(&e.h, o->note, o->notelen);
        } else {
            rc = VIEW_FAILED;
        }
        free(fid), free(chain);
        export_nodes_free(&e);
    }
    vt_free(&t);
    return rc;
}
