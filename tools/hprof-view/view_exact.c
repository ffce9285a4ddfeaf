/* view_exact.c - functions measured exactly (view_exact.h). */
#include "tools/hprof-view/view_exact.h"

#include <stdlib.h>
#include <string.h>

#include "tools/hprof-view/view_width.h"

int view_exact_load(vtree *t)
{
    int m = view_metric(t->p, VIEW_EXACT_METRIC), visits = view_metric(t->p, "visits");
    if (m < 0 || visits < 0 || vt_metric(t, m) != 0 || vt_metric(t, visits) != 0)
        return -1;
    return m;
}

int view_exact_at(const vtree *t, int m, int v, double *per_visit)
{
    int visits = view_metric(t->p, "visits");
    if (m < 0 || visits < 0 || t->v[v].is_mpi || t->v[v].region < 0)
        return 0;
    double n = t->vm[visits].excl[v], time = t->vm[m].incl[v];
    if (n <= 0 || t->vm[m].excl[v] <= 0)
        return 0;
    *per_visit = time / n;
    return 1;
}

/* "12.3 us" into buf */
static const char *duration(char *buf, size_t len, double s)
{
    if (s >= 1)
        snprintf(buf, len, "%.3f s", s);
    else if (s >= 1e-3)
        snprintf(buf, len, "%.3f ms", s * 1e3);
    else
        snprintf(buf, len, "%.3f us", s * 1e6);
    return buf;
}

/* Visits and exact time of the vnodes of function name (of module, the
 * base name of its ELF object; NULL: any): each one's exclusive
 * exact time and its callees' of other functions (inclusive), so that a
 * recursion's levels (wherever the tree put them) add up to its calls. */
static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* The ELF object of a region: its module, or, for a function without
 * source lines (a program built without -g), its file (mod), which then
 * names the object. */
static const char *object_of(const cube_region *r)
{
    return r->module ? r->module : r->mod;
}

static void totals_of(const vtree *t, int m, const char *name, const char *module, double *visits,
                      double *time)
{
    int vis = view_metric(t->p, "visits");
    *visits = *time = 0;
    for (int v = 0; v < t->nv; v++) {
        double per;
        const cube_region *r = &t->p->regions[t->v[v].region];
        if (!view_exact_at(t, m, v, &per) || !r->name || strcmp(r->name, name) != 0 ||
            (module && (!object_of(r) || strcmp(base_name(object_of(r)), module) != 0)))
            continue;
        *visits += t->vm[vis].excl[v];
        *time += t->vm[m].excl[v];
        for (int c = t->v[v].first_child; c >= 0; c = t->v[c].next_sibling)
            if (t->v[c].region != t->v[v].region)
                *time += t->vm[m].incl[c];
    }
}

const char *view_exact_marker(const vtree *t, int m, int v, char *buf, size_t len)
{
    double per;
    char d[32];
    if (!view_exact_at(t, m, v, &per))
        return NULL;
    snprintf(buf, len, "[exact, %s a visit]", duration(d, sizeof d, per));
    return buf;
}

/* HPROF_SELECT=auto's attributes (lib/exact/exact_report.h): its budget
 * and cost of a visit, and each function it dropped. */
static void auto_lines(const cube_profile *p, FILE *out)
{
    for (int i = 0; i < p->nattrs; i++) {
        const char *k = p->attrs[i].key, *val = p->attrs[i].value;
        int ranks, at = 0;
        double rate, cost;
        char module[256];
        if (!k || !val)
            continue;
        if (strcmp(k, "hprof::auto") == 0)
            fprintf(out, "%-10s HPROF_SELECT=auto: %s\n", "auto", val);
        else if (strncmp(k, "hprof::auto::dropped::", 22) == 0 &&
                 sscanf(val, "%d %lf %lf %255s %n", &ranks, &rate, &cost, module, &at) == 4 && at)
            fprintf(out, "%-10s dropped %s (%s): %.3g visits/s, %.1f%% of the run; %d ranks\n", "", val + at,
                    module, rate, cost * 100, ranks);
    }
}

int view_exact_lines(vtree *t, FILE *out)
{
    const cube_profile *p = t->p;
    int m = -1, shown = 0;
    for (int i = 0; i < p->nattrs; i++) {
        const char *k = p->attrs[i].key, *val = p->attrs[i].value;
        int ranks, at = 0;
        double since_min, since_max;
        char until[32], module[256];
        if (!k || !val || strncmp(k, "hprof::exact::", 14) != 0 ||
            sscanf(val, "%d %lf %lf %31s %255s %n", &ranks, &since_min, &since_max, until, module, &at) < 5 ||
            !at)
            continue;
        if (m < 0 && (m = view_exact_load(t)) < 0)
            return 0;
        const char *name = val + at;
        double visits, time;
        totals_of(t, m, name, strchr(module, '?') ? NULL : module, &visits, &time);
        char per[32], since[64];
        if (since_max - since_min < 0.0005)
            snprintf(since, sizeof since, "%.3f s", since_min);
        else
            snprintf(since, sizeof since, "%.3f-%.3f s", since_min, since_max);
        fprintf(out, "%-10s %s%s%s (%s): %.0f visits, %s a visit; %d ranks, from %s%s%s\n",
                shown++ ? "" : "exact", view_c(t->o, C_BOLD), name, view_c(t->o, C_RESET), module, visits,
                duration(per, sizeof per, visits > 0 ? time / visits : 0), ranks, since,
                strcmp(until, "-") ? " to " : "", strcmp(until, "-") ? until : "");
    }
    const char *unmeasured = cube_attr_get(p, "hprof::unmeasured");
    if (unmeasured)
        fprintf(out, "%-10s selected but not measured: %s\n", shown++ ? "" : "exact", unmeasured);
    const char *failed = cube_attr_get(p, "hprof::exact_unwind_failed");
    if (failed && strtoull(failed, NULL, 10) > 0)
        fprintf(out, "%-10s %s of their entries failed to unwind; those visits are under (unwind failed)\n",
                shown ? "" : "exact", failed);
    auto_lines(p, out);
    return 0;
}
