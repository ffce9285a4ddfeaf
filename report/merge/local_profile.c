/*
 * local_profile.c - from raw address-keyed trees to regions and cnodes.
 *
 * A raw node's key is a return address inside the function of that frame;
 * its parent's key is the call site that called it. So per raw node:
 *   region    = the function containing key - 1  (MPI leaves: the MPI function)
 *   call site = source line of parent key - 1
 * Function start addresses are cached per return address and regions per
 * start address, so each distinct address is resolved once. Frames of the C
 * runtime's start-up code (_start, __libc_start_main, start_thread, clone;
 * without symbols: the program's entry point and libc frames at the root)
 * are transparent: their children hang under the root, so every path starts
 * at main (or at a thread's start routine), with no call site in libc.
 *
 * The tree has one root, as Score-P's: a region named after the program
 * (paradigm measurement, role artificial; its mangled name is the command
 * line), with main, thread start routines and hprof's artificial nodes
 * under it. Readers that assume a single root (pyCubexR, so Extra-P) need it.
 */
#include "local_profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cct.h"
#include "fn_table.h"
#include "hashmap.h"
#include "locations.h"
#include "program_id.h"
#include "symbols.h"

#define TRANSPARENT (-2)

/* The last answers for a few addresses: a large tree has a million nodes
 * but only as many distinct return addresses as the program has call
 * sites, so most lookups end here, not in the maps. */
#define MEMO 1024
typedef struct memo {
    uint64_t key;        /* 0: empty (no code address is 0) */
    int a, b;
} memo;

typedef struct builder {
    local_profile *p;
    int root;    /* the program's cnode */
    symbols *sym;
    hmap *start_by_ip, *region_by_start, *line_by_ip;
    memo *regions, *sites;  /* MEMO each: region by pc, call site by return address */
} builder;

static memo *memo_slot(memo *m, uint64_t key)
{
    return &m[(key ^ key >> 10 ^ key >> 20) & (MEMO - 1)];
}

static const char *const transparent_names[] = {
    "_start", "__libc_start_main", "__libc_start_call_main", "__libc_start_main_impl",
    "start_thread", "clone", "clone3", "__clone", "__clone3", "__GI___clone3", "__GI___clone",
    hprof_thread_trampoline,
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

static int region_lookup(builder *b, uint64_t pc);

/* Region of the function containing pc, TRANSPARENT for start-up frames. */
static int region_of_pc(builder *b, uint64_t pc)
{
    memo *m = memo_slot(b->regions, pc);
    if (m->key != pc || !pc) {
        m->a = region_lookup(b, pc);
        m->key = m->a >= 0 || m->a == TRANSPARENT ? pc : 0;
    }
    return m->a;
}

static int region_lookup(builder *b, uint64_t pc)
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

/* At the root of a path, code of the C library or the loader is start-up
 * code (__libc_start_call_main, start_thread, clone3) even where it has no
 * symbol: libc without its debug file, a stripped static program. */
static int is_startup_module(builder *b, int region)
{
    const defs *d = b->p->defs;
    int mod = region >= 0 ? d->regions[region].module : -1;
    const char *path = mod >= 0 ? d->strings[mod] : "";
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strncmp(base, "libc.so", 7) == 0 || strncmp(base, "ld-linux", 8) == 0;
}

/* Call site (file string id, line) of a return address. Without line
 * information the site is the return address ("prog+0x53ea25", line -1),
 * so that two calls from one function stay two call sites, as in mpiP. */
static void site_lookup(builder *b, uint64_t ret, int *file, int *line);

static void call_site(builder *b, uint64_t ret, int *file, int *line)
{
    memo *m = memo_slot(b->sites, ret);
    if (m->key != ret || !ret) {
        site_lookup(b, ret, &m->a, &m->b);
        m->key = ret;
    }
    *file = m->a;
    *line = m->b;
}

static void site_lookup(builder *b, uint64_t ret, int *file, int *line)
{
    long packed = hmap_get(b->line_by_ip, &ret, sizeof ret);
    if (packed < 0) {
        const char *f;
        int l;
        char addr[320];
        if (symbols_line(b->sym, ret - 1, &f, &l) != 0 && symbols_address(b->sym, ret, addr, sizeof addr) == 0)
            f = addr;
        int fid = defs_string(b->p->defs, f);
        packed = ((long)(fid + 1) << 32) | (long)(uint32_t)(l + 1);
        hmap_put(b->line_by_ip, &ret, sizeof ret, packed);
    }
    *file = (int)(packed >> 32) - 1;
    *line = (int)(uint32_t)packed - 1;
}

/* A code address, also one of code unloaded since (cct.h). */
static int is_address(uint64_t key) { return (key != 0 && key < (1ull << 48)) || CCT_KEY_IS_UNLOADED(key); }

/* Values for cnodes up to ncnodes: the array grows by doubling, but only
 * the entries of cnodes that exist are written, so the pages of the room
 * to spare are never touched (a million call paths: 128 MB of values). */
static int grow_values(local_profile *p, int ncnodes)
{
    size_t nm = (size_t)metrics_nlocal(), per = (size_t)p->nthreads * nm;
    if (ncnodes > p->values_cap) {
        int cap = p->values_cap ? p->values_cap : 256;
        while (cap < ncnodes)
            cap *= 2;
        double *v = realloc(p->values, (size_t)cap * per * sizeof(double));
        if (!v)
            return -1;
        p->values = v;
        p->values_cap = cap;
    }
    for (size_t i = (size_t)p->values_cnodes * per; i < (size_t)ncnodes * per; i += nm)
        metrics_clear(p->values + i);
    if (ncnodes > p->values_cnodes)
        p->values_cnodes = ncnodes;
    return 0;
}

/* The single root cnode: the program. */
static int program_root(builder *b)
{
    char cmdline[4096];
    defs *d = b->p->defs;
    program_command_line(cmdline, sizeof cmdline);
    def_region r = { defs_string(d, program_basename()), defs_string(d, cmdline[0] ? cmdline : NULL),
                     defs_string(d, ""), -1, -1, REGION_PROGRAM };
    int region = defs_region(d, &r);
    def_cnode c = { -1, region, -1, -1 };
    return region < 0 ? -1 : defs_cnode(d, &c);
}

static int is_function_cnode(const defs *d, int cnode)
{
    return d->regions[d->cnodes[cnode].region].kind == REGION_FUNCTION;
}

/* The cnode of raw node id, given the cnode of its parent (the program's
 * root for the tree's own root). skipped[id] is set when the node is a
 * start-up frame left out. */
static int cnode_of(builder *b, const cct *tree, uint32_t id, const int *map, char *skipped)
{
    const cct_node *n = &tree->nodes[id];
    const cct_node *parent = &tree->nodes[n->parent];
    int parent_cnode = map[n->parent];
    int region, fn;
    if (n->key == CCT_KEY_NOT_UNWOUND)
        region = region_named(b, "(not unwound)", REGION_ARTIFICIAL);
    else if (n->key == CCT_KEY_UNWIND_FAILED)
        region = region_named(b, "(unwind failed)", REGION_ARTIFICIAL);
    else if (n->key == CCT_KEY_TREE_FULL)
        region = region_named(b, "(call tree full)", REGION_ARTIFICIAL);
    else if ((fn = cct_key_mpi_fn(n->key, hprof_fn_count)) >= 0)
        region = region_named(b, hprof_fn_table[fn].name, REGION_MPI);
    else if (!cct_key_is_code(n->key) && !CCT_KEY_IS_UNLOADED(n->key)) /* never written by the unwinders: keep it visible, harmless */
        region = region_named(b, "(unwind failed)", REGION_ARTIFICIAL);
    else
        region = region_of_pc(b, n->key - 1);
    /* at a path's root: every raw frame above was start-up code (whatever
     * artificial root the profile puts above the paths) */
    int at_root = n->parent == CCT_ROOT || skipped[n->parent];
    if (region == TRANSPARENT || (at_root && region >= 0 && is_address(n->key) && is_startup_module(b, region))) {
        skipped[id] = 1;
        return parent_cnode;
    }
    if (region < 0)
        return -3;
    def_cnode c = { parent_cnode, region, -1, -1 };
    /* The call site is a line of the caller: none when the caller was left
     * out (main's caller in libc). */
    if (parent_cnode != b->root && is_address(parent->key) && !skipped[n->parent])
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

static int add_thread(builder *b, const location *t)
{
    const cct *tree = t->tree;
    uint32_t nnodes = __atomic_load_n(&tree->nnodes, __ATOMIC_ACQUIRE);
    int *map = malloc((size_t)nnodes * sizeof(int));
    char *skipped = calloc((size_t)nnodes + 1, 1);
    if (!map || !skipped) {
        free(map), free(skipped);
        return -1;
    }
    map[CCT_ROOT] = b->root;
    /* at most one cnode a raw node: room at once, not by doubling (a hint) */
    if ((int)nnodes > b->p->defs->ncnodes)
        defs_reserve(b->p->defs, 0, 0, (int)nnodes - b->p->defs->ncnodes);
    for (uint32_t id = 1; id < nnodes; id++) {
        if (id == tree->full_node && !has_counts(&tree->nodes[id])) {
            map[id] = -1; /* never needed: not in the profile */
            continue;
        }
        /* Raw ids grow from parents to children, so map[parent] is set. */
        map[id] = cnode_of(b, tree, id, map, skipped);
        if (map[id] < -1 || grow_values(b->p, b->p->defs->ncnodes) != 0) {
            free(map), free(skipped);
            return -1;
        }
        /* Start-up frames fold into the program root, which keeps nothing:
         * what they held never had a place (their samples count as lost). */
        if (map[id] >= 0 && map[id] != b->root) {
            double *v = local_profile_values(b->p, map[id], t->index);
            metrics_add_counters(v, tree->nodes[id].counter, is_function_cnode(b->p->defs, map[id]));
            metrics_add_events(v, tree->nodes[id].event);
        }
    }
    free(map), free(skipped);
    return 0;
}

/* Names that say what a thread is: OpenMP threads are recognised by their
 * start routine living in libgomp. */
static char *thread_name(builder *b, const location *t)
{
    char buf[256];
    sym_info info;
    int known = t->start_routine && symbols_function(b->sym, t->start_routine, &info) == 0;
    int openmp = known && (strstr(info.module, "libgomp") || strstr(info.module, "libomp"));
    if (t->ended_threads) { /* the location ended threads were merged into (locations.h) */
        snprintf(buf, sizeof buf, "%llu ended %s (%s)", (unsigned long long)t->ended_threads,
                 openmp ? "OpenMP threads" : "threads", known ? info.name : "unknown routine");
    } else if (known) {
        if (openmp)
            snprintf(buf, sizeof buf, "OpenMP thread %d", t->index);
        else
            snprintf(buf, sizeof buf, "pthread %d (%s)", t->index, info.name);
    } else {
        snprintf(buf, sizeof buf, t->index == 0 ? "Master thread %d" : "thread %d", t->index);
    }
    return strdup(buf);
}

/* The runtime's locations (locations.h), in a new array; NULL if none
 * could be had. */
static location *get_locations(int *n)
{
    *n = hprof_locations_get(NULL, 0);
    location *loc = malloc(((size_t)*n + 1) * sizeof *loc);
    if (loc)
        *n = hprof_locations_get(loc, *n);
    return loc;
}

local_profile *local_profile_build(void)
{
    builder b = { 0 };
    b.p = calloc(1, sizeof *b.p);
    if (!b.p)
        return NULL;
    b.p->defs = defs_new();
    b.p->nthreads = hprof_locations_count();
    int nloc;
    location *loc = get_locations(&nloc);
    b.sym = symbols_open();
    b.start_by_ip = hmap_new();
    b.region_by_start = hmap_new();
    b.line_by_ip = hmap_new();
    b.regions = calloc(MEMO, sizeof *b.regions);
    b.sites = calloc(MEMO, sizeof *b.sites);
    int ok = loc && b.p->defs && b.sym && b.start_by_ip && b.region_by_start && b.line_by_ip &&
             b.regions && b.sites &&
             (b.root = program_root(&b)) >= 0 && grow_values(b.p, 1) == 0;
    b.p->thread_names = calloc((size_t)b.p->nthreads + 1, sizeof(char *));
    ok = ok && b.p->thread_names;
    for (int i = 0; ok && i < nloc; i++) {
        ok = add_thread(&b, &loc[i]) == 0;
        if (ok && loc[i].index < b.p->nthreads)
            b.p->thread_names[loc[i].index] = thread_name(&b, &loc[i]);
    }
    free(loc);
    symbols_close(b.sym);
    hmap_free(b.start_by_ip);
    hmap_free(b.region_by_start);
    hmap_free(b.line_by_ip);
    free(b.regions);
    free(b.sites);
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
