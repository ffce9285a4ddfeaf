/* vtree.c - folding, merging, focus and rank selection (see vtree.h). */
#include "tools/hprof-view/vtree.h"
#include "tools/hprof-view/short_name.h"
#include "tools/hprof-view/library_fold.h"
#include "tools/hprof-view/view_reduced.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
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

const char *vt_full_name(const vtree *t, int v)
{
    int r = t->v[v].region;
    return r >= 0 ? t->names.shown[r] : "?";
}

const char *vt_name(const vtree *t, int v)
{
    if (t->v[v].label)
        return t->v[v].label;
    int r = t->v[v].region;
    const char *s = r >= 0 && t->short_names ? t->short_names[r] : NULL;
    /* the file's own name, or a short one too long to print whole: cut */
    if (!s || s == t->p->regions[r].name || strnlen(s, VIEW_NAME_MAX + 1) > VIEW_NAME_MAX)
        return vt_full_name(t, v);
    return s;
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
        /* the object: hprof::module, or the file where hprof wrote the
         * object for want of a source file (a library without debug info) */
        const char *obj = g->module && g->module[0]         ? g->module
                          : g->mod && strstr(g->mod, ".so") ? g->mod
                                                            : NULL;
        if (!cls[r] && o->default_hide && !view_region_is_mpi(p, r)) {
            if (obj)
                cls[r] = regexec(&dmod, obj, 0, NULL, 0) == 0 ? 2 : 0;
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

/* The call site file of cnode c. hprof names a call site without a line
 * by its return address ("libstdc++.so.6+0x12fc68"): kept where the caller
 * is the program's (two calls, two sites), left out where the caller is a
 * shared library's, whose internals would only split the tree. */
static const char *site_mod(const cube_profile *p, int c)
{
    const cube_cnode *n = &p->cnodes[c];
    if (!n->mod || n->line > 0 || !strstr(n->mod, "+0x") || n->parent < 0)
        return n->mod;
    return library_of_region(p, p->cnodes[n->parent].region) ? NULL : n->mod;
}

/* hprof's profiles have one root, named after the program, for readers that
 * need one (pyCubexR); it holds no values of its own, and the views start
 * below it, at main, thread start routines and hprof's artificial nodes. */
int vt_is_program_root(const cube_profile *p, int c)
{
    const char *creator = cube_attr_get(p, "Creator");
    const cube_cnode *n = &p->cnodes[c];
    if (n->parent >= 0 || p->nroots != 1 || n->region < 0 || !creator || strncmp(creator, "hprof", 5) != 0)
        return 0;
    const cube_region *r = &p->regions[n->region];
    return r->paradigm && strcmp(r->paradigm, "measurement") == 0 && r->role &&
           strcmp(r->role, "artificial") == 0;
}

/* Names compare by class and hash by their precomputed hash: a long name
 * costs once per region, not once per call path (vnames.h). */
static int name_class(const vtree *t, int c)
{
    int r = t->p->cnodes[c].region;
    return r >= 0 ? t->names.id[r] : -1;
}

static int same_site(const vtree *t, int a, int b)
{
    const cube_cnode *x = &t->p->cnodes[a], *y = &t->p->cnodes[b];
    if (x->line != y->line || name_class(t, a) != name_class(t, b))
        return 0;
    const char *xm = site_mod(t->p, a), *ym = site_mod(t->p, b);
    if (!xm || !ym)
        return xm == ym;
    return strcmp(xm, ym) == 0;
}

/* Hash of a callee: its name and call site, or a folded node's label. */
static uint64_t site_hash(const vtree *t, int vparent, int c, const char *label)
{
    const cube_cnode *n = &t->p->cnodes[c];
    uint64_t h = 1469598103934665603ull;
    h = (h ^ (uint64_t)(uint32_t)vparent) * 1099511628211ull;
    if (label) {
        for (const char *s = label; *s; s++)
            h = (h ^ (unsigned char)*s) * 1099511628211ull;
        return h ^ (h >> 29);
    }
    h = (h ^ (n->region >= 0 ? t->names.hash[n->region] : 0)) * 1099511628211ull;
    h = (h ^ (uint64_t)n->line) * 1099511628211ull;
    for (const char *s = site_mod(t->p, c); s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h ^ (h >> 29);
}

static int new_vnode(vtree *t, int c, int vparent, int *last_child, const char *label)
{
    vnode *n = &t->v[t->nv];
    n->label = label;
    n->region = t->p->cnodes[c].region;
    n->cnode = c;
    n->parent = vparent;
    n->first_child = n->next_sibling = -1;
    n->depth = vparent >= 0 ? t->v[vparent].depth + 1 : 0;
    n->is_mpi = view_region_is_mpi(t->p, n->region);
    n->head = n->depth < VT_PATH_HEAD ? t->nv : t->v[vparent].head;
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
    int *table = malloc(sizeof *table * hsize); /* vnode indexes, -1 empty */
    int *last_child = malloc(sizeof *last_child * (size_t)(p->ncnodes + 1));
    if (!table || !last_child) {
        free(table), free(last_child);
        return VIEW_FAILED;
    }
    memset(table, 0xff, sizeof *table * hsize);
    for (int c = 0; c < p->ncnodes; c++) {
        int parent = p->cnodes[c].parent;
        if (vt_is_program_root(p, c)) {
            t->map[c] = -1;
            continue;
        }
        if (parent >= 0 && t->map[parent] >= 0 && is_hidden(p, cls, c)) {
            t->map[c] = t->map[parent];
            continue;
        }
        int vparent = parent >= 0 ? t->map[parent] : -1;
        int region = p->cnodes[c].region;
        const char *label = t->fold_label && region >= 0 ? t->fold_label[region] : NULL;
        if (label && vparent >= 0 && t->v[vparent].label && strcmp(t->v[vparent].label, label) == 0) {
            t->map[c] = vparent; /* one more frame of the library its caller is in */
            continue;
        }
        size_t h = (size_t)site_hash(t, vparent, c, label) & (hsize - 1);
        int found = -1;
        for (; table[h] >= 0; h = (h + 1) & (hsize - 1)) {
            int v = table[h];
            const char *vl = t->v[v].label;
            if (t->v[v].parent == vparent &&
                (label ? vl && strcmp(vl, label) == 0 : !vl && same_site(t, t->v[v].cnode, c))) {
                found = v;
                break;
            }
        }
        if (found < 0) {
            found = new_vnode(t, c, vparent, last_child, label);
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

/* MPI call sites numbered in tree order: the same ids for the same file
 * and --hide/--fold options, whatever --focus or --rank select. */
static void number_sites(vtree *t)
{
    int k = 0;
    for (int v = 0; v < t->nv; v++)
        t->v[v].site_id = t->v[v].is_mpi ? ++k : 0;
}

/* "site:N": the MPI call site N, its subtree and its callers. */
static int focus_site(vtree *t, const char *spec)
{
    long id;
    int number = view_parse_long(spec + 5, 1, INT_MAX, &id) == 0;
    for (int v = 0; v < t->nv && number; v++)
        if (t->v[v].site_id == id) {
            t->v[v].in_focus = t->v[v].visible = 1;
            for (int d = v + 1; d < t->nv; d++) /* descendants come after v */
                if (t->v[d].parent >= 0 && t->v[t->v[d].parent].in_focus)
                    t->v[d].in_focus = t->v[d].visible = 1;
            for (int a = t->v[v].parent; a >= 0; a = t->v[a].parent)
                t->v[a].visible = 1;
            t->focused = 1;
            return 0;
        }
    snprintf(t->o->err, t->o->errlen, "--focus: no MPI call site %s (see the ids in --mpi)", spec + 5);
    return VIEW_BAD_USAGE;
}

static int apply_focus(vtree *t)
{
    const view_opts *o = t->o;
    for (int v = 0; v < t->nv; v++)
        t->v[v].in_focus = t->v[v].visible = !o->focus;
    number_sites(t);
    if (!o->focus)
        return 0;
    if (strncmp(o->focus, "site:", 5) == 0)
        return focus_site(t, o->focus);
    regex_t re;
    int rc = compile(&re, o->focus, "--focus", o), hits = 0;
    if (rc)
        return rc;
    /* each name matched once (a name may be long and on every path) */
    const cube_profile *p = t->p;
    char *match = malloc((size_t)p->nregions + 1);
    if (!match) {
        regfree(&re);
        return VIEW_FAILED;
    }
    for (int r = 0; r < p->nregions; r++) /* the file's name or the short one */
        match[r] = regexec(&re, p->regions[r].name ? p->regions[r].name : "?", 0, NULL, 0) == 0 ||
                   (t->short_names && t->short_names[r] && regexec(&re, t->short_names[r], 0, NULL, 0) == 0);
    int unnamed = regexec(&re, "?", 0, NULL, 0) == 0;
    for (int v = 0; v < t->nv; v++) { /* parents come first */
        vnode *n = &t->v[v];
        if ((n->parent >= 0 && t->v[n->parent].in_focus) || (n->region >= 0 ? match[n->region] : unnamed) ||
            (n->label && regexec(&re, n->label, 0, NULL, 0) == 0)) {
            n->in_focus = n->visible = 1;
            hits++;
            for (int a = n->parent; a >= 0 && !t->v[a].visible; a = t->v[a].parent)
                t->v[a].visible = 1;
        }
    }
    regfree(&re);
    free(match);
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
    int any = 0, sum_only = o->rank < 0 && view_reduced_file(p); /* not the sum of sum, min, max... */
    for (int l = 0; l < p->nlocs; l++) {
        int r = p->procs[p->locs[l].process].rank;
        t->locsel[l] = sum_only ? p->locs[l].process == VIEW_REDUCED_SUM : o->rank < 0 || r == o->rank;
        any |= t->locsel[l];
    }
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
    if (rc == 0 && vnames_build(&t->names, p) < 0)
        rc = VIEW_FAILED;
    if (rc == 0 && !(t->short_names = short_names_build(p, o->long_names)))
        rc = VIEW_FAILED;
    if (rc == 0 && o->fold && !(t->fold_label = library_fold_labels(p, o->fold)))
        rc = VIEW_FAILED;
    if (rc == 0)
        rc = classify_regions(t, cls);
    if (rc == 0)
        rc = build_nodes(t, cls);
    for (int v = 0; rc == 0 && v < t->nv; v++) { /* parents come first */
        int par = t->v[v].parent;
        t->v[v].mpi_caller = par >= 0 && (t->v[par].mpi_caller || t->v[par].is_mpi);
    }
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
    vnames_free(&t->names);
    short_names_free(t->p, t->short_names);
    library_fold_free(t->p, t->fold_label);
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
static double ratio(double a, double b)
{
    return b != 0 ? a / b : NAN;
}

static int vt_ratio(vtree *t, int m, int locs)
{
    const cube_metric *mt = &t->p->metrics[m];
    int rc = locs ? vt_metric_locs(t, mt->num) : vt_metric(t, mt->num);
    if (!rc)
        rc = locs ? vt_metric_locs(t, mt->den) : vt_metric(t, mt->den);
    if (rc)
        return rc;
    vmetric *vm = &t->vm[m], *a = &t->vm[mt->num], *b = &t->vm[mt->den];
    size_t n = locs ? (size_t)t->nv * (size_t)t->p->nprocs : (size_t)t->nv;
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

/* A metric's rows, read one at a time, combined into vnodes: value l of a
 * row goes to column col[l] of its vnode (-1: location not wanted), so a
 * view holds call paths x columns, never call paths x locations. */
typedef struct accum {
    vtree *t;
    int aggr;
    int incl_sum; /* rows hold inclusive sums: a vnode takes its topmost cnodes' */
    const int *col;
    int ncols;
    double *dst; /* [vnode * ncols + column] */
    char *seen;  /* same shape: a value arrived */
    char *cseen; /* [cnode]: its row arrived */
} accum;

static void accum_row(void *ctx, int c, const double *row)
{
    accum *a = ctx;
    const vtree *t = a->t;
    int v = t->map[c], par = t->p->cnodes[c].parent;
    a->cseen[c] = 1;
    if (v < 0)
        return; /* hprof's program root: no values of its own */
    if (a->incl_sum && par >= 0 && t->map[par] == v)
        return; /* folded into v: inside its caller's inclusive value */
    size_t base = (size_t)v * (size_t)a->ncols;
    for (int l = 0; l < t->p->nlocs; l++) {
        int k = a->col[l];
        if (k < 0)
            continue;
        combine(&a->dst[base + k], row[l], a->aggr, !a->seen[base + k]);
        a->seen[base + k] = 1;
    }
}

/* Rows the file leaves out are zero, which counts for a minimum or a
 * maximum; inclusive sums become exclusive (parents come first, so in
 * index order a node is still inclusive when it is taken from its parent). */
static void accum_finish(accum *a)
{
    const vtree *t = a->t;
    size_t nc = (size_t)a->ncols;
    if (a->aggr != CUBE_AGGR_SUM)
        for (int c = 0; c < t->p->ncnodes; c++)
            if (!a->cseen[c] && t->map[c] >= 0)
                for (size_t k = 0, base = (size_t)t->map[c] * nc; k < nc; k++) {
                    combine(&a->dst[base + k], 0, a->aggr, !a->seen[base + k]);
                    a->seen[base + k] = 1;
                }
    if (a->incl_sum)
        for (int v = 0; v < t->nv; v++)
            if (t->v[v].parent >= 0)
                for (size_t k = 0; k < nc; k++)
                    a->dst[(size_t)t->v[v].parent * nc + k] -= a->dst[(size_t)v * nc + k];
}

/* Exclusive values of metric m per vnode and column into *ex (allocated),
 * inclusive ones combined up the tree into *in. */
static int accumulate(vtree *t, int m, const int *col, int ncols, double **ex, double **in)
{
    cube_profile *p = t->p;
    const cube_metric *mt = &p->metrics[m];
    size_t cells = (size_t)t->nv * (size_t)ncols + 1;
    accum a = {
        .t = t,
        .aggr = mt->aggr,
        .incl_sum = mt->kind == CUBE_KIND_INCLUSIVE && mt->aggr == CUBE_AGGR_SUM,
        .col = col,
        .ncols = ncols,
        .dst = calloc(cells, sizeof(double)),
        .seen = calloc(cells, 1),
        .cseen = calloc((size_t)p->ncnodes + 1, 1),
    };
    *in = malloc(sizeof **in * cells);
    int rc = a.dst && a.seen && a.cseen && *in ? 0 : VIEW_FAILED;
    if (rc == 0 && cube_scan_metric(p, m, accum_row, &a, t->o->err, t->o->errlen) < 0)
        rc = VIEW_BAD_FILE;
    if (rc == 0) {
        accum_finish(&a);
        memcpy(*in, a.dst, sizeof **in * cells);
        for (int v = t->nv - 1; v >= 0; v--) { /* children come after parents */
            int par = t->v[v].parent;
            for (int k = 0; par >= 0 && k < ncols; k++)
                combine(&(*in)[(size_t)par * ncols + k], (*in)[(size_t)v * ncols + k], mt->aggr, 0);
        }
    }
    free(a.seen), free(a.cseen);
    if (rc) {
        free(a.dst), free(*in);
        *in = NULL;
    }
    *ex = rc ? NULL : a.dst;
    return rc;
}

int vt_metric(vtree *t, int m)
{
    vmetric *vm = &t->vm[m];
    if (vm->excl)
        return 0;
    if (t->p->metrics[m].aggr == CUBE_AGGR_RATIO)
        return vt_ratio(t, m, 0);
    int *col = malloc(sizeof *col * ((size_t)t->p->nlocs + 1));
    if (!col)
        return VIEW_FAILED;
    for (int l = 0; l < t->p->nlocs; l++) /* the selected locations, combined */
        col[l] = t->locsel[l] ? 0 : -1;
    int rc = accumulate(t, m, col, 1, &vm->excl, &vm->incl);
    free(col);
    return rc;
}

int vt_metric_locs(vtree *t, int m)
{
    int rc = vt_metric(t, m);
    vmetric *vm = &t->vm[m];
    if (rc || vm->lexcl)
        return rc;
    cube_profile *p = t->p;
    /* one column per process: what views compare is ranks */
    if (cube_reserve_values(p, 2 * (size_t)t->nv * (size_t)p->nprocs, t->o->err, t->o->errlen) < 0)
        return VIEW_BAD_FILE;
    if (p->metrics[m].aggr == CUBE_AGGR_RATIO)
        return vt_ratio(t, m, 1);
    int *col = malloc(sizeof *col * ((size_t)p->nlocs + 1));
    if (!col)
        return VIEW_FAILED;
    for (int l = 0; l < p->nlocs; l++)
        col[l] = p->locs[l].process;
    rc = accumulate(t, m, col, p->nprocs, &vm->lexcl, &vm->lincl);
    free(col);
    return rc;
}

int vt_metric_by_loc(vtree *t, int m, double **ex, double **in)
{
    cube_profile *p = t->p;
    const cube_metric *mt = &p->metrics[m];
    size_t n = (size_t)t->nv * (size_t)p->nlocs;
    *ex = *in = NULL;
    if (cube_reserve_values(p, 2 * n, t->o->err, t->o->errlen) < 0)
        return VIEW_BAD_FILE;
    if (mt->aggr == CUBE_AGGR_RATIO) {
        double *ae, *ai, *be, *bi;
        int num = mt->num, den = mt->den; /* mt may move: ratios are added metrics */
        int rc = vt_metric_by_loc(t, num, &ae, &ai);
        if (rc == 0 && (rc = vt_metric_by_loc(t, den, &be, &bi)) != 0)
            free(ae), free(ai);
        if (rc)
            return rc;
        for (size_t i = 0; i < n; i++)
            ae[i] = ratio(ae[i], be[i]), ai[i] = ratio(ai[i], bi[i]);
        free(be), free(bi);
        *ex = ae, *in = ai;
        return 0;
    }
    int *col = malloc(sizeof *col * ((size_t)p->nlocs + 1));
    if (!col)
        return VIEW_FAILED;
    for (int l = 0; l < p->nlocs; l++)
        col[l] = l;
    int rc = accumulate(t, m, col, p->nlocs, ex, in);
    free(col);
    return rc;
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
        return ratio(vt_proc_value(t, mt->num, v, proc, inclusive),
                     vt_proc_value(t, mt->den, v, proc, inclusive));
    const double *a = inclusive ? t->vm[m].lincl : t->vm[m].lexcl;
    return a ? a[(size_t)v * (size_t)t->p->nprocs + (size_t)proc] : 0;
}

const char *vt_cut_marker(char *buf, size_t len, long n)
{
    snprintf(buf, len, "[... %ld frames ...]", n);
    return buf;
}

int vt_path_frames(const vtree *t, int v, int *frames, long *cut)
{
    int depth = t->v[v].depth, n = 0;
    *cut = 0;
    if (depth < VT_PATH_HEAD + VT_PATH_TAIL) {
        for (int a = v; a >= 0; a = t->v[a].parent)
            frames[depth - n++] = a;
        return n;
    }
    /* the head from v's anchor at depth VT_PATH_HEAD - 1, the tail from v:
     * never a walk over the whole depth */
    for (int a = t->v[v].head, k = VT_PATH_HEAD - 1; a >= 0; a = t->v[a].parent)
        frames[k--] = a;
    frames[VT_PATH_HEAD] = -1;
    for (int a = v, k = VT_PATH_FRAMES - 1; k > VT_PATH_HEAD; a = t->v[a].parent)
        frames[k--] = a;
    *cut = (long)depth + 1 - VT_PATH_HEAD - VT_PATH_TAIL;
    return VT_PATH_FRAMES;
}

const char *vt_path(const vtree *t, int v, const char *sep, char **buf, size_t *cap)
{
    int frames[VT_PATH_FRAMES];
    long cut;
    int n = vt_path_frames(t, v, frames, &cut);
    char marker[64];
    size_t need = 1, seplen = strlen(sep);
    for (int i = 0; i < n; i++)
        need += strlen(frames[i] < 0 ? vt_cut_marker(marker, sizeof marker, cut) : vt_name(t, frames[i])) +
                seplen;
    if (need > *cap) {
        char *b = realloc(*buf, need * 2);
        if (!b)
            return NULL;
        *buf = b;
        *cap = need * 2;
    }
    size_t pos = 0;
    for (int i = 0; i < n; i++) {
        const char *nm = frames[i] < 0 ? marker : vt_name(t, frames[i]);
        size_t len = strlen(nm);
        if (i) {
            memcpy(*buf + pos, sep, seplen);
            pos += seplen;
        }
        memcpy(*buf + pos, nm, len);
        pos += len;
    }
    (*buf)[pos] = '\0';
    return *buf;
}

const char *vt_site(const vtree *t, int v, char *buf, size_t len)
{
    const cube_cnode *n = &t->p->cnodes[t->v[v].cnode];
    if (n->mod && n->mod[0] && n->line > 0)
        snprintf(buf, len, "%s:%ld", n->mod, n->line);
    else if (n->line > 0)
        snprintf(buf, len, "line %ld", n->line);
    else if (n->mod && site_mod(t->p, t->v[v].cnode))
        snprintf(buf, len, "%s", n->mod); /* hprof: the return address where no line is known */
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
