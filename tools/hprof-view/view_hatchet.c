/*
 * view_hatchet.c - the profile as Hatchet's JSON (--hatchet), the form
 * GraphFrame.from_json reads (the inverse of GraphFrame.to_dict):
 *   {"graph": [{"ID": {"data": frame, "children": [IDs]}}],
 *    "dataframe": [one record per call path and location],
 *    "dataframe_indices": ["node", "rank"] (and "thread" where a rank has
 *                         several),
 *    "exclusive_metrics": [names], "inclusive_metrics": ["NAME (inc)"],
 *    "metadata": {the run: program, command, ranks, date, ...}}
 * A frame is {"name", "type", "file", "line"}: the function and its call
 * site, so that runs whose trees differ unify by call site (Thicket).
 * Records hold the call path's name, file, line, module and cnode (the
 * file's cnode id; -1 for a folded group) and every metric's exclusive
 * and inclusive value there, as --json gives them. The call tree is the
 * file's own (as --json and --csv), below hprof's program root; large
 * profiles keep the heaviest paths (view_export_nodes.h). Hatchet's
 * reader leaves "metadata" out: hprof_hatchet.read (tools/python) sets it.
 */
#include "tools/hprof-view/view_export_nodes.h"

#include <stdlib.h>
#include <string.h>

static void key_string(FILE *out, const char *key, const char *v)
{
    view_print_json_string(out, key);
    fputs(": ", out);
    view_print_json_string(out, v ? v : "");
}

static void put_frame(FILE *out, const export_nodes *e, const vtree *t, int k)
{
    char buf[64];
    int v = e->h.vnode[k];
    const cube_cnode *c = v >= 0 ? &t->p->cnodes[t->v[v].cnode] : NULL;
    fputs("{", out);
    key_string(out, "name", export_node_name(e, t, k, buf, sizeof buf));
    fputs(", ", out);
    key_string(out, "type", v < 0 ? "folded" : t->v[v].is_mpi ? "mpi" : "function");
    fputs(", ", out);
    key_string(out, "file", c && c->mod ? c->mod : "");
    fprintf(out, ", \"line\": %ld}", c && c->line > 0 ? c->line : 0L);
}

static int print_graph(FILE *out, const export_nodes *e, const vtree *t)
{
    const html_nodes *h = &e->h;
    int *first = malloc(sizeof *first * ((size_t)h->n + 1)),
        *next = malloc(sizeof *next * ((size_t)h->n + 1));
    if (!first || !next) {
        free(first), free(next);
        return VIEW_FAILED;
    }
    for (int k = h->n - 1; k >= 0; k--) { /* callers come first: lists in node order */
        first[k] = -1;
        next[k] = h->parent[k] >= 0 ? first[h->parent[k]] : -1;
        if (h->parent[k] >= 0)
            first[h->parent[k]] = k;
    }
    fputs("{\n  \"graph\": [{", out);
    for (int k = 0; k < h->n; k++) {
        fprintf(out, "%s\n    \"%d\": {\"data\": ", k ? "," : "", k);
        put_frame(out, e, t, k);
        fputs(", \"children\": [", out);
        for (int c = first[k]; c >= 0; c = next[c])
            fprintf(out, c == first[k] ? "%d" : ", %d", c);
        fputs("]}", out);
    }
    fputs("\n  }],\n", out);
    free(first), free(next);
    return 0;
}

static int threaded(const cube_profile *p)
{
    for (int l = 0; l < p->nlocs; l++)
        if (p->locs[l].thread != 0)
            return 1;
    return 0;
}

static void print_record(FILE *out, const export_nodes *e, const vtree *t, const int *ml, int k, int l,
                         int thr)
{
    const cube_profile *p = t->p;
    char buf[64];
    int v = e->h.vnode[k];
    const cube_cnode *c = v >= 0 ? &p->cnodes[t->v[v].cnode] : NULL;
    const cube_region *r = v >= 0 && t->v[v].region >= 0 ? &p->regions[t->v[v].region] : NULL;
    fprintf(out, "    {\"node\": %d, \"rank\": %d, ", k, p->procs[p->locs[l].process].rank);
    if (thr)
        fprintf(out, "\"thread\": %d, ", p->locs[l].thread);
    key_string(out, "name", export_node_name(e, t, k, buf, sizeof buf));
    fputs(", ", out);
    key_string(out, "file", c && c->mod ? c->mod : "");
    fprintf(out, ", \"line\": %ld, ", c && c->line > 0 ? c->line : 0L);
    key_string(out, "module", r && r->module ? r->module : "");
    fprintf(out, ", \"cnode\": %d", c ? c->id : -1);
    for (int mk = 0; mk < e->nm; mk++) {
        const cube_metric *m = &p->metrics[ml[mk]];
        fputs(", ", out);
        view_print_json_string(out, m->uniq_name);
        fputs(": ", out);
        view_print_json_number(out, export_value(e, mk, k, l, 0), m->is_integer);
        fprintf(out, ", ");
        char inc[256];
        snprintf(inc, sizeof inc, "%s (inc)", m->uniq_name);
        view_print_json_string(out, inc);
        fputs(": ", out);
        view_print_json_number(out, export_value(e, mk, k, l, 1), m->is_integer);
    }
    fputs("}", out);
}

static void print_metric_names(FILE *out, const cube_profile *p, const int *ml, int nm, const char *suffix)
{
    fputs("[", out);
    for (int k = 0; k < nm; k++) {
        char name[256];
        snprintf(name, sizeof name, "%s%s", p->metrics[ml[k]].uniq_name, suffix);
        fputs(k ? ", " : "", out);
        view_print_json_string(out, name);
    }
    fputs("]", out);
}

/* The program's name: hprof's root region, else the command's first word. */
static const char *program_name(const cube_profile *p, char *buf, size_t len)
{
    if (p->ncnodes > 0 && vt_is_program_root(p, 0) && p->cnodes[0].region >= 0)
        return p->regions[p->cnodes[0].region].name;
    const char *cmd = cube_attr_get(p, "hprof::command");
    if (!cmd)
        return NULL;
    snprintf(buf, len, "%.*s", (int)strcspn(cmd, " "), cmd);
    const char *slash = strrchr(buf, '/');
    return slash ? slash + 1 : buf;
}

/* Thicket makes one column of each key: scalars only. */
static void print_metadata(FILE *out, const cube_profile *p, const view_opts *o)
{
    static const struct {
        const char *key, *attr;
        int number;
    } attrs[] = {
        { "command", "hprof::command", 0 },
        { "date", "hprof::date", 0 },
        { "ranks", "hprof::ranks", 1 },
        { "mpi", "hprof::mpi", 0 },
        { "hprof_version", "hprof::version", 0 },
        { "sampling_hz", "hprof::sampling_hz", 1 },
        { "sampling_clock", "hprof::sampling_clock", 0 },
        { "callsites", "hprof::callsites", 0 },
        { "creator", "Creator", 0 },
    };
    char buf[256];
    fputs("  \"metadata\": {", out);
    key_string(out, "program", program_name(p, buf, sizeof buf));
    fputs(", ", out);
    key_string(out, "file", o->path);
    fprintf(out, ", \"processes\": %d, \"locations\": %d", p->nprocs, p->nlocs);
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        const char *v = cube_attr_get(p, attrs[i].attr);
        if (!v)
            continue;
        fputs(", ", out);
        if (attrs[i].number && v[0] && strspn(v, "0123456789") == strlen(v))
            fprintf(out, "\"%s\": %s", attrs[i].key, v);
        else
            key_string(out, attrs[i].key, v);
    }
    fputs("}\n}\n", out);
}

static int print_all(FILE *out, const export_nodes *e, const vtree *t, const int *ml, const view_opts *o)
{
    const cube_profile *p = t->p;
    int thr = threaded(p);
    if (print_graph(out, e, t) != 0)
        return VIEW_FAILED;
    fputs("  \"dataframe\": [\n", out);
    for (int k = 0; k < e->h.n; k++)
        for (int l = 0; l < p->nlocs; l++) {
            print_record(out, e, t, ml, k, l, thr);
            fputs(k + 1 < e->h.n || l + 1 < p->nlocs ? ",\n" : "\n", out);
        }
    fprintf(out, "  ],\n  \"dataframe_indices\": [\"node\", \"rank\"%s],\n  \"exclusive_metrics\": ",
            thr ? ", \"thread\"" : "");
    print_metric_names(out, p, ml, e->nm, "");
    fputs(",\n  \"inclusive_metrics\": ", out);
    print_metric_names(out, p, ml, e->nm, " (inc)");
    fputs(",\n", out);
    print_metadata(out, p, o);
    html_nodes_note(&e->h, o->note, o->notelen);
    return 0;
}

int view_hatchet(cube_profile *p, const view_opts *o, FILE *out)
{
    int nm, rc;
    int *ml = view_metric_list(p, o, &nm, &rc);
    if (!ml)
        return rc;
    vtree t;
    export_nodes e;
    rc = vt_build(&t, p, o);
    if (rc == 0 && (rc = export_nodes_build(&e, &t, ml, nm)) == 0) {
        rc = print_all(out, &e, &t, ml, o);
        export_nodes_free(&e);
    }
    vt_free(&t);
    free(ml);
    return rc;
}
