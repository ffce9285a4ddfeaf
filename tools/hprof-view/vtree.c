/* vtree.c - folding, merging, focus and rank selection (see vtree.h). */
#include "vtree.h"

#include <math.h>
#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Objects whose internals the default hides: the C and C++ runtimes, the
 * loader, and hprof itself. */
static const char default_modules[] =
    "(^|/)(libc|libstdc\\+\\+|libm|libmvec|libpthread|libdl|librt|libgcc_s|ld-linux[^/]*|libhprof)\\.so";
/* Without a module (other tools' files): glibc-internal symbol names. */
static const char default_names[] = "^(__|_IO_|_dl_|_itoa)";

static int compile(regex_t *re, const char *pat, const char *what, const view_opts *o)
{
    int rc = regcomp(re, pat, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char msg[128];
        regerror(rc, re, msg, sizeof msg);
        snprintf(o->err, o->errlen, "%s: bad regular expression '%s': %s", what, pat, msg);
        return VIEW_BAD_USAGE;
    }
    return 0;
}

const char *vt_name(const vtree *t, int v)
{
    int r = t->v[v].region;
    return r >= 0 && t->p->regions[r].name ? t->p->regions[r].name : "?";
}

/* Per region: 1 hidden by --hide, 2 internal by the default rule. */
static int classify_regions(vtree *t, char *cls)
{
    const view_opts *o = t->o;
    cube_profile *p = t->p;
    regex_t user[VIEW_MAX_HIDE], dmod, dname;
    int nuser = 0, rc = 0;
    for (int i = 0; i < o->nhide && rc == 0; i++)
        if ((rc = compile(&user[nuser], o->hide[i], "--hide", o)) == 0)
            nuser++;
    if (rc == 0 && o->default_hide) {
        compile(&dmod, default_modules, "default hide", o);
        compile(&dname, default_names, "default hide", o);
    }
    for (int r = 0; r < p->nregions && rc == 0; r++) {
        const cube_region *g = &p->regions[r];
        const char *name = g->name ? g->name : "";
        cls[r] = 0;
        for (int i = 0; i < nuser && !cls[r]; i++)
            if (regexec(&user[i], name, 0, NULL, 0) == 0)
                cls[r] = 1;
        if (!cls[r] && o->default_hide && !view_region_is_mpi(p, r)) {
            if (g->module && g->module[0])
                cls[r] = regexec(&dmod, g->module, 0, NULL, 0) == 0 ? 2 : 0;
            else
                cls[r] = regexec(&dname, name, 0, NULL, 0) == 0 ? 2 : 0;
        }
    }
    for (int i = 0; i < nuser; i++)
        regfree(&user[i]);
    if (o->default_hide && rc == 0) {
        regfree(&dmod);
        regfree(&dname);
    }
    return rc;
}

static int is_hidden(const cube_profile *p, const char *cls, int c)
{
    const cube_cnode *n = &p->cnodes[c];
    if (n->parent < 0 || n->region < 0)
        return 0;
    if (cls[n->region] == 1)
        return 1;
    int pr = p->cnodes[n->parent].region;
    return cls[n->region] == 2 && pr >= 0 && (cls[pr] == 2 || view_region_is_mpi(p, pr));
}

static int same_site(const cube_profile *p, int a, int b)
{
    const cube_cnode *x = &p->cnodes[a], *y = &p->cnodes[b];
    if (x->line != y->line || strcmp(cube_cnode_name(p, a), cube_cnode_name(p, b)) != 0)
        return 0;
    if (!x->mod || !y->mod)
        return x->mod == y->mod;
    return strcmp(x->mod, y->mod) == 0;
}

static uint64_t site_hash(const cube_profile *p, int vparent, int c)
{
    const cube_cnode *n = &p->cnodes[c];
    uint64_t h = 1469598103934665603ull;
    h = (h ^ (uint64_t)(uint32_t)vparent) * 1099511628211ull;
    for (const char *s = cube_cnode_name(p, c); *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    h = (h ^ (uint64_t)n->line) * 1099511628211ull;
    for (const char *s = n->mod; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h ^ (h >> 29);
}

static int new_vnode(vtree *t, int c, int vparent, int *last_child)
{
    vnode *n = &t->v[t->nv];
    n->region = t->p->cnodes[c].region;
    n->cnode = c;
    n->parent = vparent;
    n->first_child = n->next_sibling = -1;
    n->depth = vparent >= 0 ? t->v[vparent].depth + 1 : 0;
    n->is_mpi = view_region_is_mpi(t->p, n->region);
    if (vparent < 0)
        t->roots[t->nroots++] = t->nv;
    else if (last_child[vparent] < 0)
        t->v[vparent].first_child = t->nv;
    else
        t->v[last_child[vparent]].next_sibling = t->nv;
    if (vparent >= 0)
        last_child[vparent] = t->nv;
    last_child[t->nv] = -1;
    return t->nv++;
}

static int build_nodes(vtree *t, const char *cls)
{
    cube_profile *p = t->p;
    size_t hsize = 16;
    while (hsize < (size_t)p->ncnodes * 2)
        hsize *= 2;
    int *table = malloc(sizeof *table * hsize);    /* vnode indexes, -1 empty */
    int *last_child = malloc(sizeof *last_child * (size_t)(p->ncnodes + 1));
    if (!table || !last_child) {
        free(table), free(last_child);
        return VIEW_FAILED;
    }
    memset(table, 0xff, sizeof *table * hsize);
    for (int c = 0; c < p->ncnodes; c++) {
        int parent = p->cnodes[c].parent;
        if (parent >= 0 && is_hidden(p, cls, c)) {
            t->map[c] = t->map[parent];
            continue;
        }
        int vparent = parent >= 0 ? t->map[parent] : -1;
        size_t h = (size_t)site_hash(p, vparent, c) & (hsize - 1);
        int found = -1;
        for (; table[h] >= 0; h = (h + 1) & (hsize - 1)) {
            int v = table[h];
            if (t->v[v].parent == vparent && same_site(p, t->v[v].cnode, c)) {
                found = v;
                break;
            }
        }
        if (found < 0) {
            found = new_vnode(t, c, vparent, last_child);
            table[h] = found;
        } else {
            t->v[found].is_mpi |= view_region_is_mpi(p, p->cnodes[c].region);
        }
        t->map[c] = found;
    }
    free(table);
    free(last_child);
    return 0;
}

static int apply_focus(vtree *t)
{
    const view_opts *o = t->o;
    for (int v = 0; v < t->nv; v++)
        t->v[v].in_focus = t->v[v].visible = !o->focus;
    if (!o->focus)
        return 0;
    regex_t re;
    int rc = compile(&re, o->focus, "--focus", o), hits = 0;
    if (rc)
        return rc;
    for (int v = 0; v < t->nv; v++) {      /* parents come first */
        vnode *n = &t->v[v];
        if ((n->parent >= 0 && t->v[n->parent].in_focus) || regexec(&re, vt_name(t, v), 0, NULL, 0) == 0) {
            n->in_focus = n->visible = 1;
            hits++;
            for (int a = n->parent; a >= 0 && !t->v[a].visible; a = t->v[a].parent)
                t->v[a].visible = 1;
        }
    }
    regfree(&re);
    t->focused = 1;
    if (hits == 0) {
        snprintf(o->err, o->errlen, "--focus: no call path matches '%s'", o->focus);
        return VIEW_BAD_USAGE;
    }
    return 0;
}

static int select_locations(vtree *t)
{
    cube_profile *p = t->p;
    const view_opts *o = t->o;
    int any = 0;
    for (int l = 0; l < p->nlocs; l++) {
        int r = p->procs[p->locs[l].process].rank;
        t->locsel[l] = o->rank < 0 || r == o->rank;
        any |= t->locsel[l];
    }
    t->proc_locs = malloc(sizeof *t->proc_locs * ((size_t)p->nlocs + 1));
    t->proc_start = calloc((size_t)p->nprocs + 2, sizeof *t->proc_start);
    if (!t->proc_locs || !t->proc_start)
        return VIEW_FAILED;
    for (int l = 0; l < p->nlocs; l++)
        t->proc_start[p->locs[l].process + 1]++;
    for (int i = 0; i < p->nprocs; i++)
        t->proc_start[i + 1] += t->proc_start[i];
    int *fill = calloc((size_t)p->nprocs + 1, sizeof *fill);
    if (!fill)
        return VIEW_FAILED;
    for (int l = 0; l < p->nlocs; l++) {
        int g = p->locs[l].process;
        t->proc_locs[t->proc_start[g] + fill[g]++] = l;
    }
    free(fill);
    if (!any && p->nlocs > 0) {
        snprintf(o->err, o->errlen, "--rank: the profile has no rank %d (ranks %d..%d)", o->rank,
                 p->nprocs ? p->procs[0].rank : 0, p->nprocs ? p->procs[p->nprocs - 1].rank : 0);
        return VIEW_BAD_USAGE;
    }
    return 0;
}

int vt_build(vtree *t, cube_profile *p, const view_opts *o)
{
    memset(t, 0, sizeof *t);
    t->p = p;
    t->o = o;
    size_t n = (size_t)p->ncnodes + 1;
    t->v = calloc(n, sizeof *t->v);
    t->roots = malloc(sizeof *t->roots * n);
    t->map = malloc(sizeof *t->map * n);
    t->locsel = calloc((size_t)p->nlocs + 1, 1);
    t->vm = calloc((size_t)p->nmetrics + 1, sizeof *t->vm);
    char *cls = calloc((size_t)p->nregions + 1, 1);
    int rc = (t->v && t->roots && t->map && t->locsel && t->vm && cls) ? 0 : VIEW_FAILED;
    if (rc == 0)
        rc = classify_regions(t, cls);
    if (rc == 0)
        rc = build_nodes(t, cls);
    if (rc == 0)
        rc = apply_focus(t);
    if (rc == 0)
        rc = select_locations(t);
    free(cls);
    return rc;
}

void vt_free(vtree *t)
{
    if (t->vm)
        for (int m = 0; m < t->p->nmetrics; m++) {
            free(t->vm[m].excl), free(t->vm[m].incl);
            free(t->vm[m].lexcl), free(t->vm[m].lincl);
        }
    free(t->v), free(t->roots), free(t->map), free(t->locsel), free(t->vm);
    free(t->proc_locs), free(t->proc_start);
    memset(t, 0, sizeof *t);
}

static inline void combine(double *acc, double v, int aggr, int first)
{
    if (first || aggr == CUBE_AGGR_SUM)
        *acc = first ? v : *acc + v;
    else if (aggr == CUBE_AGGR_MIN ? v < *acc : v > *acc)
        *acc = v;
}

/* A ratio combines as the ratio of its operands' combined values. */
static double ratio(double a, double b) { return b != 0 ? a / b : NAN; }

static int vt_ratio(vtree *t, int m, int locs)
{
    const cube_metric *mt = &t->p->metrics[m];
    int rc = locs ? vt_metric_locs(t, mt->num) : vt_metric(t, mt->num);
    if (!rc)
        rc = locs ? vt_metric_locs(t, mt->den) : vt_metric(t, mt->den);
    if (rc)
        return rc;
    vmetric *vm = &t->vm[m], *a = &t->vm[mt->num], *b = &t->vm[mt->den];
    size_t n = locs ? (size_t)t->nv * (size_t)t->p->nlocs : (size_t)t->nv;
    double *ex = malloc(sizeof *ex * (n + 1)), *in = malloc(sizeof *in * (n + 1));
    if (!ex || !in) {
        free(ex), free(in);
        return VIEW_FAILED;
    }
    for (size_t i = 0; i < n; i++) {
        ex[i] = ratio(locs ? a->lexcl[i] : a->excl[i], locs ? b->lexcl[i] : b->excl[i]);
        in[i] = ratio(locs ? a->lincl[i] : a->incl[i], locs ? b->lincl[i] : b->incl[i]);
    }
    if (locs)
        vm->lexcl = ex, vm->lincl = in;
    else
        vm->excl = ex, vm->incl = in;
    return 0;
}

int vt_metric(vtree *t, int m)
{
    vmetric *vm = &t->vm[m];
    if (vm->excl)
        return 0;
    if (t->p->metrics[m].aggr == CUBE_AGGR_RATIO)
        return vt_ratio(t, m, 0);
    cube_profile *p = t->p;
    if (cube_load_metric(p, m, t->o->err, t->o->errlen) < 0)
        return VIEW_BAD_FILE;
    const cube_metric *mt = &p->metrics[m];
    double *ex = calloc((size_t)t->nv + 1, sizeof *ex), *in = malloc(sizeof *in * ((size_t)t->nv + 1));
    char *seen = calloc((size_t)t->nv + 1, 1);
    if (!ex || !in || !seen) {
        free(ex), free(in), free(seen);
        return VIEW_FAILED;
    }
    const double *src = mt->excl;
    size_t nl = (size_t)p->nlocs;
    if (src)
        for (int c = 0; c < p->ncnodes; c++) {
            const double *row = src + (size_t)c * nl;
            double acc = 0;
            int first = 1;
            for (size_t l = 0; l < nl; l++)
                if (t->locsel[l]) {
                    combine(&acc, row[l], mt->aggr, first);
                    first = 0;
                }
            int v = t->map[c];
            combine(&ex[v], acc, mt->aggr, !seen[v]);
            seen[v] = 1;
        }
    memcpy(in, ex, sizeof *in * (size_t)t->nv);
    for (int v = t->nv - 1; v >= 0; v--)  /* children come after parents */
        if (t->v[v].parent >= 0)
            combine(&in[t->v[v].parent], in[v], mt->aggr, 0);
    free(seen);
    vm->excl = ex;
    vm->incl = in;
    return 0;
}

int vt_metric_locs(vtree *t, int m)
{
    int rc = vt_metric(t, m);
    vmetric *vm = &t->vm[m];
    if (rc || vm->lexcl)
        return rc;
    if (t->p->metrics[m].aggr == CUBE_AGGR_RATIO)
        return vt_ratio(t, m, 1);
    cube_profile *p = t->p;
    const cube_metric *mt = &p->metrics[m];
    size_t nl = (size_t)p->nlocs, cells = (size_t)t->nv * nl + 1;
    double *ex = calloc(cells, sizeof *ex), *in = malloc(sizeof *in * cells);
    char *seen = calloc((size_t)t->nv + 1, 1);
    if (!ex || !in || !seen) {
        free(ex), free(in), free(seen);
        return VIEW_FAILED;
    }
    if (mt->excl)
        for (int c = 0; c < p->ncnodes; c++) {
            int v = t->map[c];
            const double *row = mt->excl + (size_t)c * nl;
            double *dst = ex + (size_t)v * nl;
            for (size_t l = 0; l < nl; l++)
                combine(&dst[l], row[l], mt->aggr, !seen[v]);
            seen[v] = 1;
        }
    memcpy(in, ex, sizeof *in * cells);
    for (int v = t->nv - 1; v >= 0; v--) {
        int par = t->v[v].parent;
        if (par < 0)
            continue;
        for (size_t l = 0; l < nl; l++)
            combine(&in[(size_t)par * nl + l], in[(size_t)v * nl + l], mt->aggr, 0);
    }
    free(seen);
    vm->lexcl = ex;
    vm->lincl = in;
    return 0;
}

double vt_total(const vtree *t, int m)
{
    const cube_metric *mt = &t->p->metrics[m];
    if (mt->aggr == CUBE_AGGR_RATIO)
        return ratio(vt_total(t, mt->num), vt_total(t, mt->den));
    const double *in = t->vm[m].incl;
    int aggr = t->p->metrics[m].aggr;
    double acc = 0;
    for (int r = 0; in && r < t->nroots; r++)
        combine(&acc, in[t->roots[r]], aggr, r == 0);
    return acc;
}

double vt_proc_value(const vtree *t, int m, int v, int proc, int inclusive)
{
    const cube_metric *mt = &t->p->metrics[m];
    if (mt->aggr == CUBE_AGGR_RATIO)
        return ratio(vt_proc_value(t, mt->num, v, proc, inclusive), vt_proc_value(t, mt->den, v, proc, inclusive));
    const double *a = inclusive ? t->vm[m].lincl : t->vm[m].lexcl;
    const cube_profile *p = t->p;
    if (!a)
        return 0;
    const double *row = a + (size_t)v * (size_t)p->nlocs;
    double acc = 0;
    for (int k = t->proc_start[proc]; k < t->proc_start[proc + 1]; k++)
        combine(&acc, row[t->proc_locs[k]], p->metrics[m].aggr, k == t->proc_start[proc]);
    return acc;
}

const char *vt_path(const vtree *t, int v, const char *sep, char **buf, size_t *cap)
{
    size_t need = 1, seplen = strlen(sep);
    for (int a = v; a >= 0; a = t->v[a].parent)
        need += strlen(vt_name(t, a)) + (a != v ? seplen : 0);
    if (need > *cap) {
        char *b = realloc(*buf, need * 2);
        if (!b)
            return NULL;
        *buf = b;
        *cap = need * 2;
    }
    size_t pos = need - 1;
    (*buf)[pos] = '\0';
    for (int a = v; a >= 0; a = t->v[a].parent) {
        const char *nm = vt_name(t, a);
        size_t len = strlen(nm);
        if (a != v) {
            pos -= seplen;
            memcpy(*buf + pos, sep, seplen);
        }
        pos -= len;
        memcpy(*buf + pos, nm, len);
    }
    return *buf;
}

const char *vt_site(const vtree *t, int v, char *buf, size_t len)
{
    const cube_cnode *n = &t->p->cnodes[t->v[v].cnode];
    if (n->mod && n->mod[0] && n->line > 0)
        snprintf(buf, len, "%s:%ld", n->mod, n->line);
    else if (n->line > 0)
        snprintf(buf, len, "line %ld", n->line);
    else
        buf[0] = '\0';
    return buf;
}

static const double *sort_key;

static int by_key(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    double kx = sort_key ? sort_key[x] : 0, ky = sort_key ? sort_key[y] : 0;
    if (kx != ky)
        return kx < ky ? 1 : -1;
    return (x > y) - (x < y);
}

int vt_sorted_children(const vtree *t, int v, const double *key, int *out)
{
    int n = 0;
    if (v < 0)
        for (int r = 0; r < t->nroots; r++)
            out[n++] = t->roots[r];
    else
        for (int c = t->v[v].first_child; c >= 0; c = t->v[c].next_sibling)
            out[n++] = c;
    sort_key = key;
    qsort(out, (size_t)n, sizeof *out, by_key);
    return n;
}
