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
 * Python frames (keys made by unwind/python/py_splice.c) are regions named by
 * the function's qualified name, with its file and first line; the
 * interpreter's own C frames fold away on every path that runs Python
 * code (between Python frames, and from the start of the process to the
 * first one), so a Python program's paths read <module> -> main -> ...,
 * with the C extensions' frames (mpi4py's) kept. A folded frame's call
 * site is its nearest kept ancestor's: an extension's call site is the
 * Python line that called it.
 *
 * The tree has one root, as Score-P's: a region named after the program
 * (paradigm measurement, role artificial; its mangled name is the command
 * line), with main, thread start routines and hprof's artificial nodes
 * under it. Readers that assume a single root (pyCubexR, so Extra-P) need it.
 */
#include "report/profile/local_profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cct.h"
#include "core/config.h"
#include "core/fn_table.h"
#include "core/hashmap.h"
#include "report/profile/program_id.h"
#include "report/profile/snapshot.h"
#include "unwind/python/py_codes.h"
#include "report/profile/symbols.h"
#include "report/profile/time_bounds.h"

#define TRANSPARENT (-2)

/* The last answers for a few addresses: a large tree has a million nodes
 * but only as many distinct return addresses as the program has call
 * sites, so most lookups end here, not in the maps. */
#define MEMO 1024
typedef struct memo {
    uint64_t key; /* 0: empty (no code address is 0) */
    int a, b;
} memo;

typedef struct builder {
    local_profile *p;
    int root;    /* the program's cnode */
    int startup; /* the cnode of "(start-up code)", -1 until needed */
    symbols *sym;
    const char *trampoline; /* the runtime's thread trampoline (snapshot.h), NULL: none */
    hmap *start_by_ip, *region_by_start, *line_by_ip, *region_by_code;
    memo *regions, *sites; /* MEMO each: region by pc, call site by return address */
} builder;

static memo *memo_slot(memo *m, uint64_t key)
{
    return &m[(key ^ key >> 10 ^ key >> 20) & (MEMO - 1)];
}

/* Per raw node of the thread being added. */
typedef struct node_marks {
    char *skipped;  /* a start-up or interpreter frame left out */
    char *py_above; /* a Python frame on the path to it */
    char *py_below; /* a Python frame in its subtree */
    uint64_t *site; /* the key its children's call site comes from (0: none) */
} node_marks;

static const char *const transparent_names[] = {
    "_start",
    "__libc_start_main",
    "__libc_start_call_main",
    "__libc_start_main_impl",
    "start_thread",
    "clone",
    "clone3",
    "__clone",
    "__clone3",
    "__GI___clone3",
    "__GI___clone",
};

static int is_transparent(const builder *b, const char *name)
{
    if (b->trampoline && strcmp(name, b->trampoline) == 0)
        return 1;
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
    if (is_transparent(b, info.name)) {
        region = TRANSPARENT;
    } else {
        defs *d = b->p->defs;
        const char *file = NULL;
        int line = -1;
        if (info.named) /* the function's first line: only now its DWARF is read */
            symbols_line(b->sym, info.start, &file, &line);
        def_region r = { defs_string(d, info.name),
                         defs_string(d, info.mangled),
                         defs_string(d, info.module),
                         defs_string(d, file),
                         line,
                         REGION_FUNCTION };
        region = defs_region(d, &r);
    }
    hmap_put(b->region_by_start, &s, sizeof s, region);
    return (int)region;
}

/* Region of a Python frame's code (py_codes.h). */
static int region_of_python(builder *b, uint64_t key)
{
    uint32_t entry = CCT_KEY_PY_ENTRY(key);
    long region = hmap_get(b->region_by_code, &entry, sizeof entry);
    if (region != -1)
        return (int)region;
    const char *name, *file;
    int line;
    defs *d = b->p->defs;
    if (py_codes_info(entry, &name, &file, &line) != 0) {
        region = region_named(b, "(python)", REGION_PYTHON);
    } else {
        def_region r = {
            defs_string(d, name ? name : "(python)"), -1, -1, defs_string(d, file), line, REGION_PYTHON
        };
        region = defs_region(d, &r);
    }
    hmap_put(b->region_by_code, &entry, sizeof entry, region);
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

static void call_site_of_return(builder *b, uint64_t ret, int *file, int *line)
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
    if (packed < 0 && CCT_KEY_IS_PY(ret)) { /* a Python frame's line */
        const char *name, *f = NULL;
        int first, l = -1;
        if (py_codes_info(CCT_KEY_PY_ENTRY(ret), &name, &f, &first) == 0)
            l = py_codes_line(CCT_KEY_PY_ENTRY(ret), CCT_KEY_PY_OFFSET(ret));
        int fid = defs_string(b->p->defs, f);
        packed = ((long)(fid + 1) << 32) | (long)(uint32_t)(l + 1);
        hmap_put(b->line_by_ip, &ret, sizeof ret, packed);
    }
    if (packed < 0) {
        const char *f;
        int l;
        char addr[320];
        if (symbols_line(b->sym, ret - 1, &f, &l) != 0 &&
            symbols_address(b->sym, ret, addr, sizeof addr) == 0)
            f = addr;
        int fid = defs_string(b->p->defs, f);
        packed = ((long)(fid + 1) << 32) | (long)(uint32_t)(l + 1);
        hmap_put(b->line_by_ip, &ret, sizeof ret, packed);
    }
    *file = (int)(packed >> 32) - 1;
    *line = (int)(uint32_t)packed - 1;
}

/* A code address, also one of code unloaded since (cct.h). */
static int is_address(uint64_t key)
{
    return (key != 0 && key < (1ull << 48)) || CCT_KEY_IS_UNLOADED(key);
}

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
    def_region r = { defs_string(d, program_basename()),
                     defs_string(d, cmdline[0] ? cmdline : NULL),
                     defs_string(d, ""),
                     -1,
                     -1,
                     REGION_PROGRAM };
    int region = defs_region(d, &r);
    def_cnode c = { -1, region, -1, -1 };
    return region < 0 ? -1 : defs_cnode(d, &c);
}

static int is_function_cnode(const defs *d, int cnode)
{
    int kind = d->regions[d->cnodes[cnode].region].kind;
    return kind == REGION_FUNCTION || kind == REGION_PYTHON;
}

/* An interpreter frame on a path that runs Python code: left out. */
static int folds_as_interpreter(const cct_node *n, uint32_t id, const node_marks *m)
{
    return is_address(n->key) && (m->py_above[id] || m->py_below[id]) && py_codes_in_interpreter(n->key - 1);
}

/* The cnode of raw node id, given the cnode of its parent (the program's
 * root for the tree's own root). m->skipped[id] is set when the node is a
 * start-up or interpreter frame left out. */
static int cnode_of(builder *b, const cct *tree, uint32_t id, const int *map, const node_marks *m)
{
    char *skipped = m->skipped;
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
    else if (CCT_KEY_IS_PY(n->key))
        region = region_of_python(b, n->key);
    else if (!cct_key_is_code(n->key) &&
             !CCT_KEY_IS_UNLOADED(n->key)) /* never written by the unwinders: keep it visible, harmless */
        region = region_named(b, "(unwind failed)", REGION_ARTIFICIAL);
    else
        region = region_of_pc(b, n->key - 1);
    /* at a path's root: every raw frame above was start-up code (whatever
     * artificial root the profile puts above the paths) */
    int at_root = n->parent == CCT_ROOT || skipped[n->parent];
    if (region == TRANSPARENT ||
        (at_root && region >= 0 && is_address(n->key) && is_startup_module(b, region)) ||
        (region >= 0 && folds_as_interpreter(n, id, m))) {
        skipped[id] = 1;
        m->site[id] = m->site[n->parent];
        return parent_cnode;
    }
    m->site[id] = n->key;
    if (region < 0)
        return -3;
    def_cnode c = { parent_cnode, region, -1, -1 };
    /* The call site is a line of the caller, or of the nearest caller
     * kept: none when that is the root (main's caller in libc). */
    uint64_t site = m->site[n->parent];
    (void)parent;
    if (parent_cnode != b->root && (is_address(site) || CCT_KEY_IS_PY(site)))
        call_site_of_return(b, site, &c.cs_file, &c.cs_line);
    return defs_cnode(b->p->defs, &c);
}

static int has_counts(const cct_node *n)
{
    for (int i = 0; i < CCT_NCOUNTERS; i++)
        if (i != CCT_MIN_NS && n->counter[i])
            return 1;
    return 0;
}

/* Start-up frames fold into the program root, which keeps nothing. The
 * samples that landed in them (the C runtime before main, a thread's
 * start-up in libc, the loader resolving a symbol for it) are time of the
 * thread all the same: they go to "(start-up code)" under the root, so
 * that sampled + MPI time stays the thread's window. Their other counts
 * (function entries) stay out, as the frames do. */
static int add_startup_samples(builder *b, const cct_node *n, int thread)
{
    if (!n->counter[CCT_SAMPLES] && !n->counter[CCT_COMP_TIME_NS])
        return 0;
    if (b->startup < 0) {
        def_cnode c = { b->root, region_named(b, "(start-up code)", REGION_ARTIFICIAL), -1, -1 };
        if (c.region < 0 || (b->startup = defs_cnode(b->p->defs, &c)) < 0 ||
            grow_values(b->p, b->p->defs->ncnodes) != 0)
            return -1;
    }
    uint64_t counter[CCT_NCOUNTERS] = { 0 };
    counter[CCT_MIN_NS] = UINT64_MAX;
    counter[CCT_COMP_TIME_NS] = n->counter[CCT_COMP_TIME_NS];
    counter[CCT_SAMPLES] = n->counter[CCT_SAMPLES];
    counter[CCT_UNWIND_FAILURES] = n->counter[CCT_UNWIND_FAILURES];
    double *v = local_profile_values(b->p, b->startup, thread);
    metrics_add_counters(v, counter, 0);
    metrics_add_events(v, n->event);
    return 0;
}

static void marks_free(node_marks *m)
{
    free(m->skipped), free(m->py_above), free(m->py_below), free(m->site);
}

/* Zeroed marks for n nodes, with py_below filled in (children have larger
 * ids than their parents); 0 or -1. */
static int marks_init(node_marks *m, const cct *tree, uint32_t n)
{
    m->skipped = calloc((size_t)n + 1, 1);
    m->py_above = calloc((size_t)n + 1, 1);
    m->py_below = calloc((size_t)n + 1, 1);
    m->site = calloc((size_t)n + 1, sizeof *m->site);
    if (!m->skipped || !m->py_above || !m->py_below || !m->site)
        return -1;
    for (uint32_t id = n; id-- > 1;)
        if (CCT_KEY_IS_PY(tree->nodes[id].key) || m->py_below[id])
            m->py_below[tree->nodes[id].parent] = 1;
    return 0;
}

/* A node's counts into its cnode's values: those of a frame folded into
 * its caller's except the entries seen (an interpreter frame's are not
 * its Python caller's). */
static void add_counts(builder *b, const cct_node *n, int cnode, int thread, int folded)
{
    uint64_t c[CCT_NCOUNTERS];
    memcpy(c, n->counter, sizeof c);
    if (folded)
        c[CCT_VISITS] = 0;
    double *v = local_profile_values(b->p, cnode, thread);
    metrics_add_counters(v, c, is_function_cnode(b->p->defs, cnode));
    metrics_add_events(v, n->event);
}

/* The thread's path log, by local cnode (map: raw node -> cnode). Time of
 * start-up frames goes to "(start-up code)", as in the values.
 * Out of memory, the rank's paths over time are dropped, not its profile. */
static void add_thread_paths(builder *b, const snapshot_thread *t, const int *map, uint32_t nnodes)
{
    const hprof_path_log *l = t->paths;
    local_profile *p = b->p;
    if (!l || !l->e || p->paths_failed)
        return;
    local_path_time *pt = realloc(p->path_times, (p->npath_times + l->n + 1) * sizeof *pt);
    if (!pt) {
        free(p->path_times);
        p->path_times = NULL;
        p->npath_times = 0;
        p->paths_failed = 1;
        return;
    }
    p->path_times = pt;
    p->paths_on = 1;
    if (l->shift > p->path_shift)
        p->path_shift = l->shift;
    for (int f = 0; f < 2; f++)
        p->path_spilled[f] += l->spilled[f];
    for (uint32_t i = 0; i < l->n; i++) {
        const path_entry *e = &l->e[i];
        int c = e->node < nnodes ? map[e->node] : -1;
        if (c == b->root)
            c = b->startup; /* start-up frames' samples (add_startup_samples) */
        if (c < 0)
            continue;
        pt[p->npath_times++] =
            (local_path_time){ (uint64_t)e->bucket << l->shift, c, { e->ns[PL_MPI], e->ns[PL_COMP] } };
    }
}

static int add_thread(builder *b, const snapshot_thread *t)
{
    const cct *tree = t->tree;
    uint32_t nnodes = __atomic_load_n(&tree->nnodes, __ATOMIC_ACQUIRE);
    int *map = malloc((size_t)nnodes * sizeof(int));
    node_marks m;
    int ok = marks_init(&m, tree, nnodes) == 0 && map;
    if (ok)
        map[CCT_ROOT] = b->root;
    /* at most one cnode a raw node: room at once, not by doubling (a hint) */
    if (ok && (int)nnodes > b->p->defs->ncnodes)
        defs_reserve(b->p->defs, 0, 0, (int)nnodes - b->p->defs->ncnodes);
    for (uint32_t id = 1; ok && id < nnodes; id++) {
        const cct_node *n = &tree->nodes[id];
        m.py_above[id] = m.py_above[n->parent] || CCT_KEY_IS_PY(tree->nodes[n->parent].key);
        if (id == tree->full_node && !has_counts(n)) {
            map[id] = -1; /* never needed: not in the profile */
            continue;
        }
        /* Raw ids grow from parents to children, so map[parent] is set. */
        map[id] = cnode_of(b, tree, id, map, &m);
        ok = map[id] >= -1 && grow_values(b->p, b->p->defs->ncnodes) == 0;
        if (ok && map[id] >= 0 && map[id] != b->root)
            add_counts(b, n, map[id], t->index, m.skipped[id]);
        else if (ok && map[id] == b->root)
            ok = add_startup_samples(b, n, t->index) == 0;
    }
    if (ok)
        add_thread_paths(b, t, map, nnodes);
    free(map);
    marks_free(&m);
    return ok ? 0 : -1;
}

/* Names that say what a thread is: OpenMP threads are recognised by their
 * start routine living in libgomp. */
static char *thread_name(builder *b, const snapshot_thread *t)
{
    char buf[256];
    sym_info info;
    int known = t->start_routine && symbols_function(b->sym, t->start_routine, &info) == 0;
    int openmp = known && (strstr(info.module, "libgomp") || strstr(info.module, "libomp"));
    if (t->name)
        return strdup(t->name);
    if (t->ended_threads) { /* the location ended threads were merged into (snapshot.h) */
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

local_profile *local_profile_build(const hprof_snapshot *s)
{
    builder b = { 0 };
    b.startup = -1;
    metrics_use_events(s->events, s->nevents, s->events_counted);
    b.p = calloc(1, sizeof *b.p);
    if (!b.p)
        return NULL;
    b.p->defs = defs_new(hprof_config.callsites == HPROF_CALLSITES_MERGE);
    b.p->nthreads = s->nlocations;
    b.trampoline = s->thread_trampoline;
    int nloc = s->nthreads;
    const snapshot_thread *loc = s->threads;
    b.sym = symbols_open();
    b.start_by_ip = hmap_new();
    b.region_by_start = hmap_new();
    b.line_by_ip = hmap_new();
    b.region_by_code = hmap_new();
    b.regions = calloc(MEMO, sizeof *b.regions);
    b.sites = calloc(MEMO, sizeof *b.sites);
    int ok = (loc || !nloc) && b.p->defs && b.sym && b.start_by_ip && b.region_by_start && b.line_by_ip &&
             b.region_by_code && b.regions && b.sites && (b.root = program_root(&b)) >= 0 &&
             grow_values(b.p, 1) == 0;
    b.p->thread_names = calloc((size_t)b.p->nthreads + 1, sizeof(char *));
    ok = ok && b.p->thread_names;
    for (int i = 0; ok && i < nloc; i++) {
        int index = loc[i].index;
        ok = index >= 0 && index < b.p->nthreads && !b.p->thread_names[index] &&
             add_thread(&b, &loc[i]) == 0 && (b.p->thread_names[index] = thread_name(&b, &loc[i])) != NULL;
    }
    /* a location no thread of the snapshot names (none in the runtime's) */
    for (int i = 0; ok && i < b.p->nthreads; i++)
        if (!b.p->thread_names[i]) {
            char buf[32];
            snprintf(buf, sizeof buf, "thread %d", i);
            ok = (b.p->thread_names[i] = strdup(buf)) != NULL;
        }
    symbols_close(b.sym);
    hmap_free(b.start_by_ip);
    hmap_free(b.region_by_start);
    hmap_free(b.line_by_ip);
    hmap_free(b.region_by_code);
    free(b.regions);
    free(b.sites);
    ok = ok && time_bounds_fill_max(b.p->values, b.p->values_cnodes, b.p->nthreads, metrics_nlocal(),
                                    b.p->defs) == 0;
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
    free(p->path_times);
    free(p);
}
