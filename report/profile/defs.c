/*
 * defs.c - unified definitions and their wire format.
 *
 * Wire format (native byte order; all ranks run on one architecture):
 *   int32 nstrings, then per string int32 length + bytes (no NUL);
 *   int32 nregions, then 6 int32 per region; int32 ncnodes, then 4 int32 each.
 */
#include "report/profile/defs.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/hashmap.h"

defs *defs_new(int merge_sites)
{
    defs *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->merge_sites = merge_sites != 0;
    d->string_ids = hmap_new();
    d->region_ids = hmap_new();
    if (!d->string_ids || !d->region_ids || idset_init(&d->cnode_ids) != 0) {
        defs_free(d);
        return NULL;
    }
    return d;
}

void defs_free(defs *d)
{
    if (!d)
        return;
    for (int i = 0; i < d->nstrings; i++)
        free(d->strings[i]);
    free(d->strings);
    free(d->regions);
    free(d->cnodes);
    hmap_free(d->string_ids);
    hmap_free(d->region_ids);
    idset_free(&d->cnode_ids);
    free(d);
}

/* Makes room for one more element in a growable array. */
static int reserve_one(void **items, int *cap, int count, size_t size)
{
    if (count < *cap)
        return 0;
    int ncap = *cap ? *cap * 2 : 64;
    void *p = realloc(*items, (size_t)ncap * size);
    if (!p)
        return -1;
    *items = p;
    *cap = ncap;
    return 0;
}

static int reserve_n(void **items, int *cap, int want, size_t size)
{
    if (want <= *cap)
        return 0;
    void *p = realloc(*items, (size_t)want * size);
    if (!p)
        return -1;
    *items = p;
    *cap = want;
    return 0;
}

int defs_reserve(defs *d, int nstrings, int nregions, int ncnodes)
{
    int rc = 0;
    rc |= reserve_n((void **)&d->strings, &d->strings_cap, d->nstrings + nstrings, sizeof(char *));
    rc |= reserve_n((void **)&d->regions, &d->regions_cap, d->nregions + nregions, sizeof(def_region));
    rc |= reserve_n((void **)&d->cnodes, &d->cnodes_cap, d->ncnodes + ncnodes, sizeof(def_cnode));
    rc |= hmap_reserve(d->string_ids, (size_t)(d->nstrings + nstrings));
    rc |= hmap_reserve(d->region_ids, (size_t)(d->nregions + nregions));
    rc |= idset_reserve(&d->cnode_ids, (size_t)(d->ncnodes + ncnodes));
    return rc ? -1 : 0;
}

int defs_string(defs *d, const char *s)
{
    return s ? defs_string_n(d, s, strlen(s)) : -1;
}

int defs_string_n(defs *d, const char *s, size_t len)
{
    long id = hmap_get(d->string_ids, s, len);
    if (id >= 0)
        return (int)id;
    if (reserve_one((void **)&d->strings, &d->strings_cap, d->nstrings, sizeof(char *)) != 0)
        return -1;
    char *copy = strndup(s, len);
    if (!copy || hmap_put(d->string_ids, s, len, d->nstrings) < 0) {
        free(copy);
        return -1;
    }
    d->strings[d->nstrings] = copy;
    return d->nstrings++;
}

const char *defs_str(const defs *d, int id)
{
    return id >= 0 && id < d->nstrings ? d->strings[id] : NULL;
}

int defs_region(defs *d, const def_region *r)
{
    int key[2] = { r->name, r->module }; /* regions are module + symbol */
    long id = hmap_get(d->region_ids, key, sizeof key);
    if (id >= 0)
        return (int)id;
    if (reserve_one((void **)&d->regions, &d->regions_cap, d->nregions, sizeof *r) != 0)
        return -1;
    if (hmap_put(d->region_ids, key, sizeof key, d->nregions) < 0)
        return -1;
    d->regions[d->nregions] = *r;
    return d->nregions++;
}

/* The 32 bits of a cnode's key the index keeps (idset.h). */
static uint32_t cnode_hash(const def_cnode *c, int merge_sites)
{
    uint64_t h = (uint64_t)(uint32_t)c->parent * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t)(uint32_t)c->region * 0xC2B2AE3D27D4EB4Full;
    if (!merge_sites)
        h ^= ((uint64_t)(uint32_t)c->cs_file << 32 | (uint32_t)c->cs_line) * 0x165667B19E3779F9ull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return (uint32_t)(h >> 32);
}

typedef struct cnode_probe {
    const def_cnode *all, *c;
    int merge_sites;
} cnode_probe;

static int same_cnode(const void *ctx, int id)
{
    const cnode_probe *p = ctx;
    const def_cnode *a = &p->all[id], *c = p->c;
    return a->parent == c->parent && a->region == c->region &&
           (p->merge_sites || (a->cs_file == c->cs_file && a->cs_line == c->cs_line));
}

/* Sites merged into one cnode: its call site stays where they all agree
 * (whatever order ranks and threads bring them in). */
static void merge_site(def_cnode *a, const def_cnode *c)
{
    if (a->cs_file != c->cs_file || a->cs_line != c->cs_line)
        a->cs_file = a->cs_line = -1;
}

int defs_cnode(defs *d, const def_cnode *c)
{
    uint32_t h = cnode_hash(c, d->merge_sites);
    cnode_probe probe = { d->cnodes, c, d->merge_sites };
    uint64_t *slot = idset_find(&d->cnode_ids, h, same_cnode, &probe);
    if (*slot) {
        int id = (int)(uint32_t)*slot - 1;
        if (d->merge_sites)
            merge_site(&d->cnodes[id], c);
        return id;
    }
    if (reserve_one((void **)&d->cnodes, &d->cnodes_cap, d->ncnodes, sizeof *c) != 0)
        return -1;
    if (idset_insert(&d->cnode_ids, slot, h, d->ncnodes) != 0)
        return -1;
    d->cnodes[d->ncnodes] = *c;
    return d->ncnodes++;
}

/* ---- wire format ------------------------------------------------------ */

typedef struct wbuf {
    char *p;
    size_t len, cap;
    int failed;
} wbuf;

static void put(wbuf *b, const void *src, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, src, n);
    b->len += n;
}

static void put_i32(wbuf *b, int32_t v)
{
    put(b, &v, sizeof v);
}

int defs_serialize(const defs *d, char **buf, size_t *len)
{
    wbuf b = { 0 };
    put_i32(&b, d->nstrings);
    for (int i = 0; i < d->nstrings; i++) {
        int32_t n = (int32_t)strlen(d->strings[i]);
        put_i32(&b, n);
        put(&b, d->strings[i], (size_t)n);
    }
    put_i32(&b, d->nregions);
    for (int i = 0; i < d->nregions; i++) {
        const def_region *r = &d->regions[i];
        int32_t v[6] = { r->name, r->mangled, r->module, r->file, r->begin_line, r->kind };
        put(&b, v, sizeof v);
    }
    put_i32(&b, d->ncnodes);
    for (int i = 0; i < d->ncnodes; i++) {
        const def_cnode *c = &d->cnodes[i];
        int32_t v[4] = { c->parent, c->region, c->cs_file, c->cs_line };
        put(&b, v, sizeof v);
    }
    if (b.failed) {
        free(b.p);
        return -1;
    }
    *buf = b.p;
    *len = b.len;
    return 0;
}

typedef struct rbuf {
    const char *p;
    size_t len, pos;
    int failed;
} rbuf;

static int32_t get_i32(rbuf *b)
{
    int32_t v = 0;
    if (b->failed || b->len - b->pos < sizeof v) {
        b->failed = 1;
        return 0;
    }
    memcpy(&v, b->p + b->pos, sizeof v);
    b->pos += sizeof v;
    return v;
}

/* A count that must fit in what is left of the buffer at `each` bytes apiece. */
static int32_t get_count(rbuf *b, size_t each)
{
    int32_t n = get_i32(b);
    if (n < 0 || (size_t)n > (b->len - b->pos) / each)
        b->failed = 1;
    return b->failed ? 0 : n;
}

static int valid_ref(int id, int count)
{
    return id >= -1 && id < count;
}

static int mapped(const int *map, int id)
{
    return id < 0 ? -1 : map[id];
}

/* Strings of the buffer, each looked up once; *map: buffer id -> d's id. */
static int absorb_strings(rbuf *b, defs *d, int **map)
{
    int32_t n = get_count(b, sizeof(int32_t));
    *map = malloc(((size_t)n + 1) * sizeof(int));
    for (int i = 0; *map && i < n && !b->failed; i++) {
        int32_t len = get_count(b, 1);
        const char *s = b->p + b->pos;
        if (b->failed || memchr(s, 0, (size_t)len) || ((*map)[i] = defs_string_n(d, s, (size_t)len)) < 0)
            b->failed = 1;
        b->pos += b->failed ? 0 : (size_t)len;
    }
    return *map && !b->failed ? n : -1;
}

static int absorb_regions(rbuf *b, defs *d, const int *smap, int ns, int **map)
{
    int32_t n = get_count(b, 6 * sizeof(int32_t));
    *map = malloc(((size_t)n + 1) * sizeof(int));
    for (int i = 0; *map && i < n && !b->failed; i++) {
        int32_t v[6];
        for (int k = 0; k < 6; k++)
            v[k] = get_i32(b);
        if (!valid_ref(v[0], ns) || !valid_ref(v[1], ns) || !valid_ref(v[2], ns) || !valid_ref(v[3], ns))
            b->failed = 1;
        def_region r = {
            mapped(smap, v[0]), mapped(smap, v[1]), mapped(smap, v[2]), mapped(smap, v[3]), v[4], v[5]
        };
        if (!b->failed && ((*map)[i] = defs_region(d, &r)) < 0)
            b->failed = 1;
    }
    return *map && !b->failed ? n : -1;
}

/* Parents precede children in the buffer, so a parent's id in d is known
 * when its children arrive. */
static int absorb_cnodes(rbuf *b, defs *d, const int *smap, int ns, const int *rmap, int nr, int *map, int n)
{
    for (int i = 0; i < n; i++) {
        int32_t v[4];
        for (int k = 0; k < 4; k++)
            v[k] = get_i32(b);
        if (b->failed || !valid_ref(v[0], i) || v[1] < 0 || v[1] >= nr || !valid_ref(v[2], ns))
            return -1;
        def_cnode c = { mapped(map, v[0]), rmap[v[1]], mapped(smap, v[2]), v[3] };
        /* Ranks of one program build their trees in much the same order:
         * the cnode after the last one found is the first guess, and a
         * guess that matches is the answer (d holds each cnode once). */
        int guess = i > 0 ? map[i - 1] + 1 : 0;
        cnode_probe probe = { d->cnodes, &c, d->merge_sites };
        if (guess >= 0 && guess < d->ncnodes && same_cnode(&probe, guess)) {
            map[i] = guess;
            if (d->merge_sites)
                merge_site(&d->cnodes[guess], &c);
        } else if ((map[i] = defs_cnode(d, &c)) < 0)
            return -1;
    }
    return 0;
}

int defs_absorb_wire(defs *d, const char *buf, size_t len, int **cnode_map, int *ncnodes)
{
    rbuf b = { buf, len, 0, 0 };
    int *smap = NULL, *rmap = NULL, *cmap = NULL;
    int ns = absorb_strings(&b, d, &smap);
    int nr = ns < 0 ? -1 : absorb_regions(&b, d, smap, ns, &rmap);
    int32_t nc = nr < 0 ? 0 : get_count(&b, 4 * sizeof(int32_t));
    int rc = -1;
    /* sized for the buffer's cnodes less d's own (ranks share most) */
    if (nr >= 0 && !b.failed && (cmap = malloc(((size_t)nc + 1) * sizeof(int))) != NULL) {
        defs_reserve(d, 0, 0, nc > d->ncnodes ? nc - d->ncnodes : 0);
        rc = absorb_cnodes(&b, d, smap, ns, rmap, nr, cmap, nc);
    }
    if (rc == 0 && (b.failed || b.pos != len))
        rc = -1;
    free(smap);
    free(rmap);
    if (rc != 0) {
        free(cmap);
        cmap = NULL;
    }
    *cnode_map = cmap;
    *ncnodes = rc == 0 ? nc : 0;
    return rc;
}
