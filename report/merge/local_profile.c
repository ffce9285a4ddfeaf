/*
 * local_profile.c - from raw address-keyed trees to regions and cnodes.
 *
 * A raw node's key is a return address inside the function of that frame;
 * its parent's key is the call site that called it. So per raw node:
 *   region    = the function containing key - 1  (MPI leaves: the MPI function)
 *   call site = source line of parent key - 1
 * Function start addresses are cached per return address and regions per
 * start address, so each distinct address is resolved once. Frames of the C
 * runtime's start-up code (_start, __libc_start_main, start_thread, clone)
 * are transparent: their children become roots, so every path starts at main
 * (or at a thread's start routine).
 */
#include "local_profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cct.h"
#include "fn_table.h"
#include "hashmap.h"
#include "symbols.h"
#include "thread.h"

#define TRANSPARENT (-2)

typedef struct builder {
    local_profile *p;
    symbols *sym;
    hmap *start_by_ip, *region_by_start, *line_by_ip;
} builder;

static const char *const transparent_names[] = {
    "_start", "__libc_start_main", "__libc_start_call_main", "__libc_start_main_impl",
    "start_thread", "clone", "clone3", "__clone", "__clone3", "__GI___clone3", "__GI___clone",
    "hprof_thread_start", /* lib/thread_start.c's trampoline */
};

static int is_transparent(const char *name)
{
    for (size_t i = 0; i < sizeof transparent_names / sizeof *transparent_names; i++)
        if (strcmp(name, transparent_names[i]) == 0)
            return 1;
    return 0;
}

static int region_named(builder *b, const char *name, int kind)
{
    defs *d = b->p->defs;
    def_region r = { defs_string(d, name), -1, defs_string(d, ""), -1, -1, kind };
    return defs_region(d, &r);
}

/* Region of the function containing pc, TRANSPARENT for start-up frames. */
static int region_of_pc(builder *b, uint64_t pc)
{
    long start = hmap_get(b->start_by_ip, &pc, sizeof pc);
    sym_info info;
    int have_info = 0;
    if (start < 0) {
        symbols_function(b->sym, pc, &info);
        have_info = 1;
        start = (long)info.start;
        hmap_put(b->start_by_ip, &pc, sizeof pc, start);
    }
    uint64_t s = (uint64_t)start;
    long region = hmap_get(b->region_by_start, &s, sizeof s);
    if (region != -1)
        return (int)region;
    if (!have_info)
        symbols_function(b->sym, pc, &info);
    if (is_transparent(info.name)) {
        region = TRANSPARENT;
    } else {
        defs *d = b->p->defs;
        def_region r = { defs_string(d, info.name), defs_string(d, info.mangled),
                         defs_string(d, info.module), defs_string(d, info.file), info.line,
                         REGION_FUNCTION };
        region = defs_region(d, &r);
    }
    hmap_put(b->region_by_start, &s, sizeof s, region);
    return (int)region;
}

/* Call site (file string id, line) of a return address. */
static void call_site(builder *b, uint64_t ret, int *file, int *line)
{
    long packed = hmap_get(b->line_by_ip, &ret, sizeof ret);
    if (packed < 0) {
        const char *f;
        int l;
        symbols_line(b->sym, ret - 1, &f, &l);
        int fid = defs_string(b->p->defs, f);
        packed = ((long)(fid + 1) << 32) | (long)(uint32_t)(l + 1);
        hmap_put(b->line_by_ip, &ret, sizeof ret, packed);
    }
    *file = (int)(packed >> 32) - 1;
    *line = (int)(uint32_t)packed - 1;
}

static int is_address(uint64_t key) { return key != 0 && key < (1ull << 48); }

static int grow_values(local_profile *p, int ncnodes)
{
    if (ncnodes <= p->values_cnodes)
        return 0;
    int cap = p->values_cnodes ? p->values_cnodes : 256;
    while (cap < ncnodes)
        cap *= 2;
    size_t nm = (size_t)metrics_nlocal(), per = (size_t)p->nthreads * nm;
    double *v = realloc(p->values, (size_t)cap * per * sizeof(double));
    if (!v)
        return -1;
    for (size_t i = (size_t)p->values_cnodes * per; i < (size_t)cap * per; i += nm)
        metrics_clear(v + i);
    p->values = v;
    p->values_cnodes = cap;
    return 0;
}

/* The cnode of raw node id, given the cnode of its parent (-1 = a root). */
static int cnode_of(builder *b, const cct *tree, uint32_t id, const int *map)
{
    const cct_node *n = &tree->nodes[id];
    const cct_node *parent = &tree->nodes[n->parent];
    int parent_cnode = map[n->parent];
    int region;
    if (n->key == CCT_KEY_NOT_UNWOUND)
        region = region_named(b, "(not unwound)", REGION_ARTIFICIAL);
    else if (n->key == CCT_KEY_UNWIND_FAILED)
        region = region_named(b, "(unwind failed)", REGION_ARTIFICIAL);
    else if (n->key == CCT_KEY_TREE_FULL)
        region = region_named(b, "(call tree full)", REGION_ARTIFICIAL);
    else if (CCT_KEY_IS_MPI_FN(n->key))
        region = region_named(b, hprof_fn_table[CCT_KEY_MPI_FN_ID(n->key)].name, REGION_MPI);
    else
        region = region_of_pc(b, n->key - 1);
    if (region == TRANSPARENT)
        return parent_cnode;
    if (region < 0)
        return -3;
    def_cnode c = { parent_cnode, region, -1, -1 };
    if (parent_cnode >= 0 && is_address(parent->key))
        call_site(b, parent->key, &c.cs_file, &c.cs_line);
    return defs_cnode(b->p->defs, &c);
}

static int has_counts(const cct_node *n)
{
    for (int i = 0; i < CCT_NCOUNTERS; i++)
        if (i != CCT_MIN_NS && n->counter[i])
            return 1;
    return 0;
}

static int add_thread(builder *b, const hprof_thread *t)
{
    const cct *tree = &t->tree;
    uint32_t nnodes = __atomic_load_n(&tree->nnodes, __ATOMIC_ACQUIRE);
    int *map = malloc((size_t)nnodes * sizeof(int));
    if (!map)
        return -1;
    map[CCT_ROOT] = -1;
    for (uint32_t id = 1; id < nnodes; id++) {
        if (id == tree->full_node && !has_counts(&tree->nodes[id])) {
            map[id] = -1; /* never needed: not in the profile */
            continue;
        }
        /* Raw ids grow from parents to children, so map[parent] is set. */
        map[id] = cnode_of(b, tree, id, map);
        if (map[id] < -1 || grow_values(b->p, b->p->defs->ncnodes) != 0) {
            free(map);
            return -1;
        }
        if (map[id] >= 0) {
            double *v = local_profile_values(b->p, map[id], t->index);
            metrics_add_counters(v, tree->nodes[id].counter);
            metrics_add_events(v, tree->nodes[id].event);
        }
    }
    free(map);
    return 0;
}

/* Names that say what a thread is: OpenMP threads are recognised by their
 * start routine living in libgomp. */
static char *thread_name(builder *b, const hprof_thread *t)
{
    char buf[256];
    sym_info info;
    if (t->start_routine && symbols_function(b->sym, t->start_routine, &info) == 0) {
        if (strstr(info.module, "libgomp") || strstr(info.module, "libomp"))
            snprintf(buf, sizeof buf, "OpenMP thread %d", t->index);
        else
            snprintf(buf, sizeof buf, "pthread %d (%s)", t->index, info.name);
    } else {
        snprintf(buf, sizeof buf, t->index == 0 ? "Master thread %d" : "thread %d", t->index);
    }
    return strdup(buf);
}

local_profile *local_profile_build(void)
{
    builder b = { 0 };
    b.p = calloc(1, sizeof *b.p);
    if (!b.p)
        return NULL;
    b.p->defs = defs_new();
    b.p->nthreads = hprof_thread_count();
    b.sym = symbols_open();
    b.start_by_ip = hmap_new();
    b.region_by_start = hmap_new();
    b.line_by_ip = hmap_new();
    int ok = b.p->defs && b.sym && b.start_by_ip && b.region_by_start && b.line_by_ip &&
             grow_values(b.p, 1) == 0;
    b.p->thread_names = calloc((size_t)b.p->nthreads + 1, sizeof(char *));
    ok = ok && b.p->thread_names;
    for (hprof_thread *t = hprof_thread_list(); ok && t; t = t->next) {
        ok = add_thread(&b, t) == 0;
        if (ok && t->index < b.p->nthreads)
            b.p->thread_names[t->index] = thread_name(&b, t);
    }
    symbols_close(b.sym);
    hmap_free(b.start_by_ip);
    hmap_free(b.region_by_start);
    hmap_free(b.line_by_ip);
    if (!ok) {
        local_profile_free(b.p);
        return NULL;
    }
    return b.p;
}

void local_profile_free(local_profile *p)
{
    if (!p)
        return;
    defs_free(p->defs);
    free(p->values);
    for (int i = 0; p->thread_names && i < p->nthreads; i++)
        free(p->thread_names[i]);
    free(p->thread_names);
    free(p);
}
