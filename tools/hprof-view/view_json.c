/*
 * view_json.c - the whole profile as JSON (schema "hprof-view/1", see
 * tools/hprof-view/README.md): attributes, metrics, regions, the system
 * tree (processes and locations) and the file's own call tree (no folding)
 * with, per call path and metric, the exclusive and inclusive value of
 * every location. Metrics that are zero at a call path are left out there.
 */
#include "tools/hprof-view/view.h"
#include "tools/hprof-view/short_name.h"
#include "tools/hprof-view/view_reduced.h"
#include "tools/hprof-view/vnames.h"

#include <stdlib.h>
#include <string.h>

static const char *kind_name(int k)
{
    static const char *const n[] = { "exclusive", "inclusive", "simple", "derived" };
    return k >= 0 && k < 4 ? n[k] : "?";
}

static const char *aggr_name(int a)
{
    return a == CUBE_AGGR_MIN ? "min" : a == CUBE_AGGR_MAX ? "max" : "sum";
}

static void key_str(FILE *out, const char *key, const char *val, int comma)
{
    fprintf(out, "%s\"%s\": ", comma ? ", " : "", key);
    if (val)
        view_print_json_string(out, val);
    else
        fputs("null", out);
}

static void key_int(FILE *out, const char *key, long v, int null_if_negative)
{
    if (null_if_negative && v < 0)
        fprintf(out, ", \"%s\": null", key);
    else
        fprintf(out, ", \"%s\": %ld", key, v);
}

static void print_metrics(FILE *out, const cube_profile *p)
{
    fputs("  \"metrics\": [\n", out);
    for (int i = 0; i < p->nmetrics; i++) {
        const cube_metric *m = &p->metrics[i];
        fprintf(out, "    {\"index\": %d", i);
        key_str(out, "name", m->uniq_name, 1);
        key_str(out, "display_name", m->disp_name, 1);
        key_str(out, "unit", m->uom, 1);
        key_str(out, "dtype", m->dtype, 1);
        key_str(out, "kind", kind_name(m->kind), 1);
        key_str(out, "aggregation", aggr_name(m->aggr), 1);
        key_int(out, "parent", m->parent, 1);
        fprintf(out, ", \"loaded\": %s", m->loadable ? "true" : "false");
        key_str(out, "description", m->descr, 1);
        fprintf(out, "}%s\n", i + 1 < p->nmetrics ? "," : "");
    }
    fputs("  ],\n", out);
}

/* Regions with both names: the file's, and the short one the text views
 * print (short_name.h). */
static void print_regions(FILE *out, const cube_profile *p)
{
    const char **shorts = short_names_build(p, 0);
    fputs("  \"regions\": [\n", out);
    for (int i = 0; i < p->nregions; i++) {
        const cube_region *r = &p->regions[i];
        fprintf(out, "    {\"index\": %d, \"id\": %d", i, r->id);
        key_str(out, "name", r->name, 1);
        key_str(out, "short_name", shorts ? shorts[i] : r->name, 1);
        key_str(out, "mangled_name", r->mangled_name, 1);
        key_str(out, "file", r->mod, 1);
        key_str(out, "module", r->module, 1);
        key_int(out, "begin_line", r->begin, 1);
        key_int(out, "end_line", r->end, 1);
        key_str(out, "paradigm", r->paradigm, 1);
        key_str(out, "role", r->role, 1);
        fprintf(out, ", \"mpi\": %s}%s\n", view_region_is_mpi(p, i) ? "true" : "false",
                i + 1 < p->nregions ? "," : "");
    }
    fputs("  ],\n", out);
    short_names_free(p, shorts);
}

static const char *node_name(const cube_profile *p, int sysnode)
{
    for (int s = sysnode; s >= 0; s = p->sysnodes[s].parent)
        if (p->sysnodes[s].klass && strcmp(p->sysnodes[s].klass, "node") == 0)
            return p->sysnodes[s].name;
    return sysnode >= 0 ? p->sysnodes[sysnode].name : NULL;
}

static void print_system(FILE *out, const cube_profile *p)
{
    fputs("  \"processes\": [\n", out);
    for (int i = 0; i < p->nprocs; i++) {
        const cube_process *g = &p->procs[i];
        fprintf(out, "    {\"index\": %d, \"rank\": %d", i, g->rank);
        key_str(out, "name", g->name, 1);
        key_str(out, "node", node_name(p, g->sysnode), 1);
        fprintf(out, "}%s\n", i + 1 < p->nprocs ? "," : "");
    }
    fputs("  ],\n  \"locations\": [\n", out);
    for (int l = 0; l < p->nlocs; l++) {
        const cube_location *c = &p->locs[l];
        fprintf(out, "    {\"index\": %d, \"process\": %d, \"rank\": %d, \"thread\": %d", l, c->process,
                p->procs[c->process].rank, c->thread);
        key_str(out, "name", c->name, 1);
        fprintf(out, "}%s\n", l + 1 < p->nlocs ? "," : "");
    }
    fputs("  ],\n", out);
}

static void print_values(FILE *out, const cube_profile *p, const int *ml, int nm, int c, int inclusive)
{
    fprintf(out, ", \"%s\": {", inclusive ? "inclusive" : "exclusive");
    int first = 1;
    for (int k = 0; k < nm; k++) {
        const cube_metric *m = &p->metrics[ml[k]];
        const double *v = inclusive ? m->incl : m->excl;
        if (!v)
            continue;
        v += (size_t)c * (size_t)p->nlocs;
        int nz = 0;
        for (int l = 0; l < p->nlocs && !nz; l++)
            nz = v[l] != 0;
        if (!nz)
            continue;
        fprintf(out, "%s", first ? "" : ", ");
        view_print_json_string(out, m->uniq_name);
        fputs(": [", out);
        for (int l = 0; l < p->nlocs; l++) {
            if (l)
                fputc(',', out);
            view_print_json_number(out, v[l], m->is_integer);
        }
        fputc(']', out);
        first = 0;
    }
    fputc('}', out);
}

/* A reduced file's (view_reduced.h): per metric with a value here, the
 * ranks of its min and max over the ranks, where its max is not 0. */
static void print_min_max_ranks(FILE *out, const cube_profile *p, const view_reduced *r, const int *ml,
                                int nm, int c)
{
    int first = 1, lo, hi;
    for (int k = 0; k < nm; k++) {
        if (!view_reduced_ranks(p, r, ml[k], c, &lo, &hi) ||
            cube_value(p, ml[k], c, VIEW_REDUCED_MAX, 0) == 0)
            continue;
        fputs(first ? ", \"min_max_ranks\": {" : ", ", out);
        view_print_json_string(out, p->metrics[ml[k]].uniq_name);
        fprintf(out, ": [%d, %d]", lo, hi);
        first = 0;
    }
    if (!first)
        fputc('}', out);
}

int view_json(cube_profile *p, const view_opts *o, FILE *out)
{
    int nm, rc;
    int *ml = view_metric_list(p, o, &nm, &rc);
    if (!ml)
        return rc;
    fputs("{\n  \"schema\": \"hprof-view/1\",\n  \"file\": ", out);
    view_print_json_string(out, o->path);
    fputs(",\n  \"cube_version\": ", out);
    view_print_json_string(out, p->version);
    fputs(",\n  \"attributes\": {", out);
    for (int i = 0; i < p->nattrs; i++) {
        fputs(i ? ",\n    " : "\n    ", out);
        view_print_json_string(out, p->attrs[i].key);
        fputs(": ", out);
        view_print_json_string(out, p->attrs[i].value);
    }
    fputs(p->nattrs ? "\n  },\n" : "},\n", out);
    print_metrics(out, p);
    print_regions(out, p);
    print_system(out, p);
    fputs("  \"values_of\": [", out);
    for (int k = 0; k < nm; k++) {
        fputs(k ? ", " : "", out);
        view_print_json_string(out, p->metrics[ml[k]].uniq_name);
    }
    fputs("],\n  \"totals\": {", out);
    for (int k = 0; k < nm; k++) {
        fputs(k ? ", " : "", out);
        view_print_json_string(out, p->metrics[ml[k]].uniq_name);
        double t = 0;
        for (int r = 0; r < p->nroots; r++) {
            double v = cube_value_all_locs(p, ml[k], p->roots[r], 1);
            int a = p->metrics[ml[k]].aggr;
            t = r == 0 || a == CUBE_AGGR_SUM ? (r == 0 ? v : t + v)
                : a == CUBE_AGGR_MIN         ? (v < t ? v : t)
                                             : (v > t ? v : t);
        }
        fputs(": ", out);
        view_print_json_number(out, t, p->metrics[ml[k]].is_integer);
    }
    view_reduced reduced;
    int has_reduced = view_reduced_load(p, &reduced);
    fputs("},\n  \"call_tree\": [\n", out);
    for (int c = 0; c < p->ncnodes; c++) {
        const cube_cnode *n = &p->cnodes[c];
        fprintf(out, "    {\"index\": %d, \"id\": %d", c, n->id);
        key_int(out, "parent", n->parent, 1);
        key_int(out, "region", n->region, 1);
        char cut[VIEW_NAME_MAX + 64]; /* regions[] holds the whole name */
        key_str(out, "name", view_cut_name(cube_cnode_name(p, c), cut, sizeof cut), 1);
        key_int(out, "depth", n->depth, 0);
        key_str(out, "file", n->mod && n->mod[0] ? n->mod : NULL, 1);
        key_int(out, "line", n->line, 1);
        print_values(out, p, ml, nm, c, 0);
        print_values(out, p, ml, nm, c, 1);
        if (has_reduced)
            print_min_max_ranks(out, p, &reduced, ml, nm, c);
        fprintf(out, "}%s\n", c + 1 < p->ncnodes ? "," : "");
    }
    fputs("  ]\n}\n", out);
    view_reduced_free(&reduced);
    free(ml);
    return 0;
}
