/*
 * view_html.c - one self-contained HTML page (no network access, no
 * external scripts): the page from html/report.html with the view tree's
 * data inlined as JSON:
 *   {"file", "header": [lines], "ranks": [rank numbers],
 *    "metrics": [{"name", "unit", "integer"}],
 *    "nodes": {"name": [], "parent": [], "site": [], "lib": [], "mpi": []},
 *    "values": {metric: {"incl": [], "excl": [], "ranks": [node * nranks + r]}},
 *    "timeline": null or {"width", "start", "rows", "share", "paths",
 *                "path_time"} (print_timeline)}
 * Values are combined over the selected locations; "ranks" holds each
 * node's inclusive value per rank (all ranks) for the heat strip. The
 * nodes are the call paths a person can see, the others folded into
 * "[N more call paths]" nodes (view_html_fold.h); the header says so.
 */
#include "tools/hprof-view/view_html.h"
#include "tools/hprof-view/vtl_data.h"
#include "tools/hprof-view/vtree.h"
#include "tools/hprof-view/library_fold.h"
#include "tools/hprof-view/view_html_fold.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int choose_metrics(const cube_profile *p, const view_opts *o, int *ml)
{
    int n = 0;
    for (int i = 0; i < o->nmetrics; i++)
        ml[n++] = o->metrics[i];
    if (n)
        return n;
    static const char *const pref[] = { "time",       "mpi_time",       "comp_time", "visits",
                                        "bytes_sent", "bytes_received", "samples" };
    for (size_t i = 0; i < sizeof pref / sizeof pref[0]; i++)
        if (view_metric(p, pref[i]) >= 0)
            ml[n++] = view_metric(p, pref[i]);
    for (int m = 0; m < p->nmetrics && n < 8; m++) {
        int dup = 0;
        for (int k = 0; k < n; k++)
            dup |= ml[k] == m;
        if (!dup && p->metrics[m].loadable)
            ml[n++] = m;
    }
    return n;
}

static void header_lines(vtree *t, const char *note, FILE *out)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (mem) {
        vt_header(t, mem);
        fclose(mem);
    }
    fputs("\"header\": [", out);
    int first = 1;
    for (char *save = NULL, *line = buf ? strtok_r(buf, "\n", &save) : NULL; line;
         line = strtok_r(NULL, "\n", &save)) {
        fputs(first ? "" : ", ", out);
        view_print_json_string(out, line);
        first = 0;
    }
    if (note) {
        fputs(first ? "" : ", ", out);
        view_print_json_string(out, note);
    }
    fputs("],\n", out);
    free(buf);
}

static void number_array(FILE *out, const double *v, size_t n)
{
    fputc('[', out);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputc(',', out);
        if (v[i] == 0)
            fputc('0', out);
        else if (!isfinite(v[i]))
            fputs("null", out); /* a ratio over nothing */
        else
            fprintf(out, "%.9g", v[i]);
    }
    fputc(']', out);
}

/* The heaviest paths' time per heat map cell: "paths": [names],
 * "path_time": [path][row][column] seconds; the first HEAT_PATHS paths
 * (the file numbers them heaviest first: a cell's tooltip names its 3
 * heaviest). */
#define HEAT_PATHS 64
static void print_heat_paths(const cube_profile *p, const timeline *tl, int rows, int cols, FILE *out)
{
    char name[512];
    int npaths = tl->npaths < HEAT_PATHS ? tl->npaths : HEAT_PATHS;
    fputs(", \"paths\": [", out);
    for (int k = 0; k < npaths; k++) {
        fputs(k ? "," : "", out);
        view_print_json_string(out, vtl_path_label(p, tl, k, name, sizeof name));
    }
    fputs("], \"path_time\": [", out);
    for (int k = 0; k < npaths; k++) {
        fputs(k ? ",\n[" : "[", out);
        for (int row = 0; row < rows; row++) {
            int r0 = row * tl->nranks / rows, r1 = (row + 1) * tl->nranks / rows;
            fputs(row ? ",[" : "[", out);
            for (int c = 0, b0, b1; c < cols; c++) {
                vtl_column(tl, c, cols, &b0, &b1);
                double v = vtl_path_sum(tl, k, r0, r1, VTL_BOTH, b0, b1) * 1e-9;
                fprintf(out, v > 0 ? "%s%.4g" : "%s0", c ? "," : "", v);
            }
            fputc(']', out);
        }
        fputc(']', out);
    }
    fputc(']', out);
}

/* "timeline": the ranks x time heat map of MPI share (null without one):
 * {"width": seconds a column, "start": seconds at the first column (a
 * phase's start with --phase), "rows": [labels], "share": [[row's
 * columns]], "paths", "path_time" (print_heat_paths)}, at most HEAT_COLS
 * columns and HEAT_ROWS rows (groups of ranks). */
#define HEAT_COLS 120
#define HEAT_ROWS 64
static void print_timeline(const cube_profile *p, const view_opts *o, FILE *out)
{
    timeline tl;
    if (vtl_load(p, o, &tl) <= 0) {
        fputs("\"timeline\": null", out);
        return;
    }
    int shown = tl.b1 - tl.b0, cols = shown < HEAT_COLS ? shown : HEAT_COLS;
    int rows = tl.nranks < HEAT_ROWS ? tl.nranks : HEAT_ROWS;
    fprintf(out, "\"timeline\": {\"width\": %.9g, \"start\": %.9g, \"rows\": [", tl.width * shown / cols,
            tl.width * tl.b0);
    for (int row = 0; row < rows; row++) {
        int r0 = row * tl.nranks / rows, r1 = (row + 1) * tl.nranks / rows;
        fprintf(out, r1 - r0 == 1 ? "%s\"rank %d\"" : "%s\"ranks %d-%d\"", row ? "," : "", r0, r1 - 1);
    }
    fputs("], \"share\": [", out);
    for (int row = 0; row < rows; row++) {
        int r0 = row * tl.nranks / rows, r1 = (row + 1) * tl.nranks / rows;
        fputs(row ? ",\n[" : "[", out);
        for (int c = 0, b0, b1; c < cols; c++) {
            vtl_column(&tl, c, cols, &b0, &b1);
            fprintf(out, "%s%.3f", c ? "," : "", vtl_share(&tl, r0, r1, b0, b1));
        }
        fputc(']', out);
    }
    fputc(']', out);
    print_heat_paths(p, &tl, rows, cols, out);
    fputc('}', out);
    vtl_free(&tl);
}

/* --phase restricts the heat map: a phase that does not fit is an error
 * before any output. */
static int check_phase(const cube_profile *p, const view_opts *o)
{
    timeline tl;
    int got = o->phase ? vtl_load(p, o, &tl) : 1;
    if (got > 0 && o->phase)
        vtl_free(&tl);
    if (got == 0)
        snprintf(o->err, o->errlen, "--phase: this profile has no timeline");
    else if (got == -1)
        snprintf(o->err, o->errlen, "--phase: the time line member is malformed or too large");
    return got > 0 ? 0 : VIEW_BAD_USAGE;
}

static void print_nodes(vtree *t, const html_nodes *h, FILE *out)
{
    char name[64];
    fputs("],\n\"nodes\": {\"name\": [", out);
    for (int k = 0; k < h->n; k++) {
        fputs(k ? "," : "", out);
        if (h->vnode[k] < 0)
            snprintf(name, sizeof name, "[%d more call path%s]", h->members[k],
                     h->members[k] == 1 ? "" : "s");
        view_print_json_string(out, h->vnode[k] < 0 ? name : vt_name(t, h->vnode[k]));
    }
    fputs("],\n\"parent\": [", out);
    for (int k = 0; k < h->n; k++)
        fprintf(out, "%s%d", k ? "," : "", h->parent[k]);
    fputs("],\n\"site\": [", out);
    for (int k = 0; k < h->n; k++) {
        char site[512];
        fputs(k ? "," : "", out);
        view_print_json_string(out, h->vnode[k] < 0 ? "" : vt_site(t, h->vnode[k], site, sizeof site));
    }
    fputs("],\n\"lib\": [", out); /* for the page's "fold libraries" */
    for (int k = 0; k < h->n; k++) {
        int v = h->vnode[k];
        const char *lib = v < 0 || t->v[v].label ? NULL : library_of_region(t->p, t->v[v].region);
        fputs(k ? "," : "", out);
        view_print_json_string(out, lib ? lib : "");
    }
    fputs("],\n\"mpi\": [", out);
    for (int k = 0; k < h->n; k++)
        fprintf(out, "%s%d", k ? "," : "", h->vnode[k] >= 0 && t->v[h->vnode[k]].is_mpi);
    fputs("]},\n", out);
}

static int print_values(vtree *t, const html_nodes *h, const int *ml, int nm, FILE *out)
{
    cube_profile *p = t->p;
    size_t np = (size_t)h->nprocs;
    double *tmp = malloc(sizeof *tmp * ((size_t)h->n * np + 1));
    if (!tmp)
        return VIEW_FAILED;
    fputs("\"values\": {", out);
    for (int mk = 0; mk < nm; mk++) {
        fputs(mk ? ",\n" : "\n", out);
        view_print_json_string(out, p->metrics[ml[mk]].uniq_name);
        for (int pass = 0; pass < 2; pass++) {
            for (int k = 0; k < h->n; k++)
                tmp[k] = html_node_value(h, t, ml, mk, k, !pass);
            fputs(pass ? ", \"excl\": " : ": {\"incl\": ", out);
            number_array(out, tmp, (size_t)h->n);
        }
        for (int k = 0; k < h->n; k++)
            for (int i = 0; i < p->nprocs; i++)
                tmp[(size_t)k * np + (size_t)i] = html_node_proc_value(h, t, ml, mk, k, i);
        fputs(",\n \"ranks\": ", out);
        number_array(out, tmp, (size_t)h->n * (size_t)(p->nprocs > 0 ? p->nprocs : 0));
        fputc('}', out);
    }
    fputs("},\n", out);
    free(tmp);
    return 0;
}

static int print_data(vtree *t, const html_nodes *h, const char *note, const int *ml, int nm, FILE *out)
{
    cube_profile *p = t->p;
    fputs("{\"file\": ", out);
    view_print_json_string(out, t->o->path);
    fputs(",\n", out);
    header_lines(t, note, out);
    fputs("\"ranks\": [", out);
    for (int i = 0; i < p->nprocs; i++)
        fprintf(out, "%s%d", i ? "," : "", p->procs[i].rank);
    fputs("],\n\"metrics\": [", out);
    for (int k = 0; k < nm; k++) {
        const cube_metric *m = &p->metrics[ml[k]];
        fputs(k ? ", {\"name\": " : "{\"name\": ", out);
        view_print_json_string(out, m->uniq_name);
        fputs(", \"unit\": ", out);
        view_print_json_string(out, m->uom);
        fprintf(out, ", \"integer\": %s}", m->is_integer ? "true" : "false");
    }
    print_nodes(t, h, out);
    int rc = print_values(t, h, ml, nm, out);
    print_timeline(p, t->o, out);
    fputs("}", out);
    return rc;
}

int view_html(cube_profile *p, const view_opts *o, FILE *out)
{
    vtree t;
    int rc = check_phase(p, o);
    if (rc != 0)
        return rc;
    rc = vt_build(&t, p, o);
    int *ml = malloc(sizeof *ml * ((size_t)p->nmetrics + (size_t)o->nmetrics + 8));
    int nm = 0;
    if (rc == 0 && !ml)
        rc = VIEW_FAILED;
    if (rc == 0)
        nm = choose_metrics(p, o, ml);
    for (int k = 0; k < nm && rc == 0; k++)
        rc = vt_metric_locs(&t, ml[k]);
    html_nodes h = { 0 };
    if (rc == 0)
        rc = html_nodes_choose(&h, &t, ml, nm);
    if (rc == 0) {
        char note[400];
        const char *said = html_nodes_note(&h, note, sizeof note);
        if (said && o->note)
            snprintf(o->note, o->notelen, "%s", said);
        fputs(view_html_head, out);
        rc = print_data(&t, &h, said, ml, nm, out);
        fputs(view_html_tail, out);
    }
    html_nodes_free(&h);
    free(ml);
    vt_free(&t);
    return rc;
}
