/*
 * cr_anchor.c - expat handlers that build the profile's definitions.
 *
 * Every element goes on a stack tagged with what it defines, so a text
 * element (<name>, <uniq_name>, ...) is assigned to the object of its parent
 * element when it closes, and nesting gives metric, cnode and system-tree
 * parents.
 */
#include "report/cube/reader/cr_anchor.h"
#include "report/cube/reader/cr_util.h"

#include <errno.h>
#include <expat.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ITEMS (1 << 26)
#define MAX_DEPTH 1000000
#define MAX_TEXT (16u << 20)
#define CHUNK (1u << 20)

enum owner {
    O_OTHER,
    O_CUBE,
    O_METRIC,
    O_REGION,
    O_CNODE,
    O_SYSNODE,
    O_LGROUP,
    O_LOC
};

typedef struct frame {
    int kind, idx;
} frame;

typedef struct ctx {
    cube_profile *p;
    XML_Parser xp;
    frame *stack;
    int depth, stack_cap;
    int cap_metrics, cap_regions, cap_cnodes, cap_sys, cap_procs, cap_locs, cap_attrs;
    char *text;
    size_t tlen, tcap;
    int collecting;
    int *loc_count; /* locations seen per process */
    int cap_loc_count;
    char msg[200];
} ctx;

/* Stops parsing with our own message. */
static void fail(ctx *c, const char *msg)
{
    if (!c->msg[0])
        snprintf(c->msg, sizeof c->msg, "%s", msg);
    XML_StopParser(c->xp, XML_FALSE);
}

static const char *attr(const XML_Char **atts, const char *key)
{
    for (int i = 0; atts[i]; i += 2)
        if (strcmp(atts[i], key) == 0)
            return atts[i + 1];
    return NULL;
}

/* Integer attribute or text; def if absent; sets *bad if malformed. */
static long to_long(const char *s, long def, int *bad)
{
    if (!s)
        return def;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
        end++;
    if (errno || end == s || *end || v < INT_MIN || v > INT_MAX) {
        *bad = 1;
        return def;
    }
    return v;
}

static int id_attr(ctx *c, const XML_Char **atts, const char *key)
{
    int bad = 0;
    long v = to_long(attr(atts, key), -1, &bad);
    if (bad || v < 0) {
        fail(c, "bad or missing id attribute");
        return -1;
    }
    return (int)v;
}

/* Index of the nearest enclosing element of a kind, -1 if none. */
static int enclosing(const ctx *c, int kind)
{
    for (int i = c->depth - 1; i >= 0; i--)
        if (c->stack[i].kind == kind)
            return c->stack[i].idx;
    return -1;
}

static int parent_kind(const ctx *c)
{
    return c->depth > 0 ? c->stack[c->depth - 1].kind : O_OTHER;
}

#define GROW(c, arr, n, cap)                                              \
    (cr_grow((void **)&(arr), (n), &(cap), sizeof *(arr), MAX_ITEMS) == 0 \
         ? 0                                                              \
         : (fail((c), "too many definitions or out of memory"), -1))

static int start_metric(ctx *c, const XML_Char **atts)
{
    cube_profile *p = c->p;
    if (GROW(c, p->metrics, p->nmetrics, c->cap_metrics) < 0)
        return -1;
    cube_metric *m = &p->metrics[p->nmetrics];
    m->id = id_attr(c, atts, "id");
    m->parent = enclosing(c, O_METRIC);
    const char *t = attr(atts, "type");
    if (!t || strcmp(t, "EXCLUSIVE") == 0)
        m->kind = CUBE_KIND_EXCLUSIVE;
    else if (strcmp(t, "INCLUSIVE") == 0)
        m->kind = CUBE_KIND_INCLUSIVE;
    else if (strcmp(t, "SIMPLE") == 0)
        m->kind = CUBE_KIND_SIMPLE;
    else
        m->kind = CUBE_KIND_DERIVED;
    const char *viz = attr(atts, "viztype");
    m->ghost = viz && strcmp(viz, "GHOST") == 0;
    return p->nmetrics++;
}

static int start_region(ctx *c, const XML_Char **atts)
{
    cube_profile *p = c->p;
    if (GROW(c, p->regions, p->nregions, c->cap_regions) < 0)
        return -1;
    cube_region *r = &p->regions[p->nregions];
    int bad = 0;
    r->id = id_attr(c, atts, "id");
    r->mod = cr_strdup(attr(atts, "mod"));
    r->begin = to_long(attr(atts, "begin"), -1, &bad);
    r->end = to_long(attr(atts, "end"), -1, &bad);
    return p->nregions++;
}

static int start_cnode(ctx *c, const XML_Char **atts)
{
    cube_profile *p = c->p;
    if (GROW(c, p->cnodes, p->ncnodes, c->cap_cnodes) < 0)
        return -1;
    cube_cnode *n = &p->cnodes[p->ncnodes];
    int bad = 0;
    n->id = id_attr(c, atts, "id");
    /* the callee's region id for now; cr_anchor_parse resolves it */
    n->region = (int)to_long(attr(atts, "calleeId"), -1, &bad);
    n->line = to_long(attr(atts, "line"), -1, &bad);
    n->mod = cr_strdup(attr(atts, "mod"));
    n->parent = enclosing(c, O_CNODE);
    n->first_child = n->next_sibling = -1;
    if (bad)
        fail(c, "bad cnode attribute");
    return p->ncnodes++;
}

static int start_sysnode(ctx *c, const XML_Char **atts)
{
    cube_profile *p = c->p;
    if (GROW(c, p->sysnodes, p->nsysnodes, c->cap_sys) < 0)
        return -1;
    cube_sysnode *s = &p->sysnodes[p->nsysnodes];
    s->id = id_attr(c, atts, "Id");
    s->parent = enclosing(c, O_SYSNODE);
    return p->nsysnodes++;
}

static int start_lgroup(ctx *c, const XML_Char **atts)
{
    cube_profile *p = c->p;
    if (GROW(c, p->procs, p->nprocs, c->cap_procs) < 0)
        return -1;
    if (GROW(c, c->loc_count, p->nprocs, c->cap_loc_count) < 0)
        return -1;
    cube_process *g = &p->procs[p->nprocs];
    g->id = id_attr(c, atts, "Id");
    g->sysnode = enclosing(c, O_SYSNODE);
    c->loc_count[p->nprocs] = 0;
    return p->nprocs++;
}

static int start_location(ctx *c, const XML_Char **atts)
{
    cube_profile *p = c->p;
    int proc = enclosing(c, O_LGROUP);
    if (proc < 0) {
        fail(c, "location outside a locationgroup");
        return -1;
    }
    if (GROW(c, p->locs, p->nlocs, c->cap_locs) < 0)
        return -1;
    cube_location *l = &p->locs[p->nlocs];
    l->id = id_attr(c, atts, "Id");
    l->process = proc;
    l->thread = c->loc_count[proc]++;
    return p->nlocs++;
}

static void start_attr(ctx *c, const XML_Char **atts)
{
    cube_profile *p = c->p;
    if (parent_kind(c) == O_REGION) { /* hprof names a region's ELF object */
        const char *k = attr(atts, "key"), *v = attr(atts, "value");
        int r = c->stack[c->depth - 1].idx;
        if (r >= 0 && k && v && strcmp(k, "hprof::module") == 0) {
            free(p->regions[r].module);
            p->regions[r].module = cr_strdup(v);
        }
        return;
    }
    if (parent_kind(c) != O_CUBE)
        return; /* attributes of cnodes etc. are not kept */
    if (GROW(c, p->attrs, p->nattrs, c->cap_attrs) < 0)
        return;
    const char *k = attr(atts, "key"), *v = attr(atts, "value");
    p->attrs[p->nattrs].key = cr_strdup(k ? k : "");
    p->attrs[p->nattrs].value = cr_strdup(v ? v : "");
    p->nattrs++;
}

/* Classifies an element, creating the object it defines. */
static frame open_element(ctx *c, const char *el, const XML_Char **atts)
{
    frame f = { O_OTHER, -1 };
    if (strcmp(el, "cube") == 0) {
        f.kind = O_CUBE;
        free(c->p->version);
        c->p->version = cr_strdup(attr(atts, "version"));
    } else if (strcmp(el, "metric") == 0) {
        f.kind = O_METRIC, f.idx = start_metric(c, atts);
    } else if (strcmp(el, "region") == 0) {
        f.kind = O_REGION, f.idx = start_region(c, atts);
    } else if (strcmp(el, "cnode") == 0) {
        f.kind = O_CNODE, f.idx = start_cnode(c, atts);
    } else if (strcmp(el, "systemtreenode") == 0) {
        f.kind = O_SYSNODE, f.idx = start_sysnode(c, atts);
    } else if (strcmp(el, "locationgroup") == 0) {
        f.kind = O_LGROUP, f.idx = start_lgroup(c, atts);
    } else if (strcmp(el, "location") == 0) {
        f.kind = O_LOC, f.idx = start_location(c, atts);
    } else if (strcmp(el, "attr") == 0) {
        start_attr(c, atts);
    }
    return f;
}

static void on_start(void *ud, const XML_Char *el, const XML_Char **atts)
{
    ctx *c = ud;
    if (c->depth >= MAX_DEPTH) {
        fail(c, "XML nested too deeply");
        return;
    }
    frame f = open_element(c, el, atts);
    if (cr_grow((void **)&c->stack, c->depth, &c->stack_cap, sizeof *c->stack, MAX_DEPTH) < 0) {
        fail(c, "out of memory");
        return;
    }
    c->stack[c->depth++] = f;
    c->tlen = 0;
    c->collecting = 1;
}

static void on_text(void *ud, const XML_Char *s, int len)
{
    ctx *c = ud;
    if (!c->collecting || len <= 0)
        return;
    if (c->tlen + (size_t)len + 1 > MAX_TEXT) {
        fail(c, "XML text element too long");
        return;
    }
    if (c->tlen + (size_t)len + 1 > c->tcap) {
        size_t ncap = (c->tlen + (size_t)len + 1) * 2;
        char *t = realloc(c->text, ncap);
        if (!t) {
            fail(c, "out of memory");
            return;
        }
        c->text = t;
        c->tcap = ncap;
    }
    memcpy(c->text + c->tlen, s, (size_t)len);
    c->tlen += (size_t)len;
}

/* Replaces *slot with a copy of the collected text. */
static void take(ctx *c, char **slot)
{
    free(*slot);
    *slot = cr_strndup(c->text ? c->text : "", c->tlen);
}

static int text_int(ctx *c)
{
    int bad = 0;
    char *s = cr_strndup(c->text ? c->text : "", c->tlen);
    long v = s ? to_long(s, -1, &bad) : -1;
    free(s);
    if (bad)
        fail(c, "bad integer in XML text");
    return (int)v;
}

static void metric_field(ctx *c, cube_metric *m, const char *el)
{
    if (strcmp(el, "uniq_name") == 0)
        take(c, &m->uniq_name);
    else if (strcmp(el, "disp_name") == 0)
        take(c, &m->disp_name);
    else if (strcmp(el, "dtype") == 0)
        take(c, &m->dtype);
    else if (strcmp(el, "uom") == 0)
        take(c, &m->uom);
    else if (strcmp(el, "descr") == 0)
        take(c, &m->descr);
    else if (strcmp(el, "url") == 0)
        take(c, &m->url);
}

static void region_field(ctx *c, cube_region *r, const char *el)
{
    if (strcmp(el, "name") == 0)
        take(c, &r->name);
    else if (strcmp(el, "mangled_name") == 0)
        take(c, &r->mangled_name);
    else if (strcmp(el, "paradigm") == 0)
        take(c, &r->paradigm);
    else if (strcmp(el, "role") == 0)
        take(c, &r->role);
    else if (strcmp(el, "descr") == 0)
        take(c, &r->descr);
    else if (strcmp(el, "url") == 0)
        take(c, &r->url);
}

/* A text element closed: hand its text to the object that owns it. */
static void assign_text(ctx *c, const char *el, frame owner)
{
    cube_profile *p = c->p;
    if (owner.idx < 0)
        return;
    switch (owner.kind) {
    case O_METRIC: metric_field(c, &p->metrics[owner.idx], el); break;
    case O_REGION: region_field(c, &p->regions[owner.idx], el); break;
    case O_SYSNODE:
        if (strcmp(el, "name") == 0)
            take(c, &p->sysnodes[owner.idx].name);
        else if (strcmp(el, "class") == 0)
            take(c, &p->sysnodes[owner.idx].klass);
        break;
    case O_LGROUP:
        if (strcmp(el, "name") == 0)
            take(c, &p->procs[owner.idx].name);
        else if (strcmp(el, "rank") == 0)
            p->procs[owner.idx].rank = text_int(c);
        break;
    case O_LOC:
        if (strcmp(el, "name") == 0)
            take(c, &p->locs[owner.idx].name);
        else if (strcmp(el, "rank") == 0)
            p->locs[owner.idx].rank = text_int(c);
        break;
    default: break;
    }
}

static void on_end(void *ud, const XML_Char *el)
{
    ctx *c = ud;
    if (c->depth <= 0)
        return;
    frame self = c->stack[--c->depth];
    if (c->collecting && self.kind == O_OTHER && c->depth > 0)
        assign_text(c, el, c->stack[c->depth - 1]);
    c->collecting = 0;
}

static int run_expat(ctx *c, const char *xml, size_t len, char *err, size_t errlen)
{
    c->xp = XML_ParserCreate(NULL);
    if (!c->xp)
        return cr_err(err, errlen, "out of memory");
    XML_SetUserData(c->xp, c);
    XML_SetElementHandler(c->xp, on_start, on_end);
    XML_SetCharacterDataHandler(c->xp, on_text);
    int rc = 0;
    size_t off = 0;
    do {
        size_t n = len - off > CHUNK ? CHUNK : len - off;
        int final = off + n == len;
        if (XML_Parse(c->xp, xml + off, (int)n, final) == XML_STATUS_ERROR) {
            if (c->msg[0])
                rc = cr_err(err, errlen, "anchor.xml: %s", c->msg);
            else
                rc = cr_err(err, errlen, "anchor.xml: line %lu: %s",
                            (unsigned long)XML_GetCurrentLineNumber(c->xp),
                            XML_ErrorString(XML_GetErrorCode(c->xp)));
            break;
        }
        off += n;
    } while (off < len);
    XML_ParserFree(c->xp);
    return rc;
}

static int cmp_pair(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Turns each cnode's calleeId into a region index. */
static int resolve_regions(cube_profile *p, char *err, size_t errlen)
{
    int(*map)[2] = malloc(sizeof *map * (size_t)(p->nregions ? p->nregions : 1));
    if (!map)
        return cr_err(err, errlen, "out of memory");
    for (int i = 0; i < p->nregions; i++)
        map[i][0] = p->regions[i].id, map[i][1] = i;
    qsort(map, (size_t)p->nregions, sizeof *map, cmp_pair);
    int rc = 0;
    for (int i = 0; i < p->ncnodes && rc == 0; i++) {
        int key[2] = { p->cnodes[i].region, 0 };
        int(*hit)[2] = bsearch(key, map, (size_t)p->nregions, sizeof *map, cmp_pair);
        if (!hit)
            rc = cr_err(err, errlen, "anchor.xml: cnode %d calls unknown region %d", p->cnodes[i].id,
                        p->cnodes[i].region);
        else
            p->cnodes[i].region = (*hit)[1];
    }
    free(map);
    return rc;
}

/* Child lists, depths and roots; document order is preorder, so a
 * parent's index is always smaller than its children's. */
static int link_tree(cube_profile *p, char *err, size_t errlen)
{
    p->roots = malloc(sizeof *p->roots * (size_t)(p->ncnodes ? p->ncnodes : 1));
    if (!p->roots)
        return cr_err(err, errlen, "out of memory");
    for (int i = p->ncnodes - 1; i >= 0; i--) {
        cube_cnode *n = &p->cnodes[i];
        if (n->parent >= 0) {
            n->next_sibling = p->cnodes[n->parent].first_child;
            p->cnodes[n->parent].first_child = i;
        }
    }
    for (int i = 0; i < p->ncnodes; i++) {
        cube_cnode *n = &p->cnodes[i];
        n->depth = n->parent >= 0 ? p->cnodes[n->parent].depth + 1 : 0;
        if (n->parent < 0)
            p->roots[p->nroots++] = i;
    }
    return 0;
}

/* Data columns follow location ids when they are 0..n-1 (as Cube writes
 * them); otherwise document order. */
static int order_locations(cube_profile *p, char *err, size_t errlen)
{
    int n = p->nlocs;
    if (n == 0)
        return 0;
    char *seen = calloc((size_t)n, 1);
    cube_location *sorted = malloc(sizeof *sorted * (size_t)n);
    if (!seen || !sorted) {
        free(seen);
        free(sorted);
        return cr_err(err, errlen, "out of memory");
    }
    int ok = 1;
    for (int i = 0; i < n && ok; i++) {
        int id = p->locs[i].id;
        if (id < 0 || id >= n || seen[id])
            ok = 0;
        else
            seen[id] = 1, sorted[id] = p->locs[i];
    }
    if (ok) { /* strings move with the shallow copies */
        free(p->locs);
        p->locs = sorted;
    } else {
        free(sorted);
    }
    free(seen);
    return 0;
}

int cr_anchor_parse(cube_profile *p, const char *xml, size_t len, char *err, size_t errlen)
{
    ctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    int rc = run_expat(&c, xml, len, err, errlen);
    free(c.stack);
    free(c.text);
    free(c.loc_count);
    if (rc == 0 && !p->version)
        rc = cr_err(err, errlen, "anchor.xml: no <cube> element");
    if (rc == 0)
        rc = resolve_regions(p, err, errlen);
    if (rc == 0)
        rc = link_tree(p, err, errlen);
    if (rc == 0)
        rc = order_locations(p, err, errlen);
    return rc;
}
