/*
 * defs.c - unified definitions and their wire format.
 *
 * Wire format (native byte order; all ranks run on one architecture):
 *   int32 nstrings, then per string int32 length + bytes (no NUL);
 *   int32 nregions, then 6 int32 per region; int32 ncnodes, then 4 int32 each.
 */
#include "defs.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"

defs *defs_new(void)
{
    defs *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->string_ids = hmap_new();
    d->region_ids = hmap_new();
    d->cnode_ids = hmap_new();
    if (!d->string_ids || !d->region_ids || !d->cnode_ids) {
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
    hmap_free(d->cnode_ids);
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
    rc |= hmap_reserve(d->cnode_ids, (size_t)(d->ncnodes + ncnodes));
    return rc ? -1 : 0;
}

int defs_string(defs *d, const char *s)
{
    if (!s)
        return -1;
    size_t len = strlen(s);
    long id = hmap_get(d->string_ids, s, len);
    if (id >= 0)
        return (int)id;
    if (reserve_one((void **)&d->strings, &d->strings_cap, d->nstrings, sizeof(char *)) != 0)
        return -1;
    char *copy = strdup(s);
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

int defs_cnode(defs *d, const def_cnode *c)
{
    int key[4] = { c->parent, c->region, c->cs_file, c->cs_line };
    long id = hmap_get(d->cnode_ids, key, sizeof key);
    if (id >= 0)
        return (int)id;
    if (reserve_one((void **)&d->cnodes, &d->cnodes_cap, d->ncnodes, sizeof *c) != 0)
        return -1;
    if (hmap_put(d->cnode_ids, key, sizeof key, d->ncnodes) < 0)
        return -1;
    d->cnodes[d->ncnodes] = *c;
    return d->ncnodes++;
}

/* ---- wire format ------------------------------------------------------ */

typedef struct wbuf { char *p; size_t len, cap; int failed; } wbuf;

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

static void put_i32(wbuf *b, int32_t v) { put(b, &v, sizeof v); }

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

typedef struct rbuf { const char *p; size_t len, pos; int failed; } rbuf;

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

static int valid_ref(int id, int count) { return id >= -1 && id < count; }

static int read_strings(rbuf *b, defs *d, int *map)
{
    int32_t n = get_count(b, sizeof(int32_t));
    defs_reserve(d, n, 0, 0);
    for (int i = 0; i < n && !b->failed; i++) {
        int32_t len = get_count(b, 1);
        char *s = b->failed ? NULL : strndup(b->p + b->pos, (size_t)len);
        b->pos += (size_t)len;
        map[i] = s ? defs_string(d, s) : -1;
        free(s);
        if (map[i] != i) /* strings arrive unique */
            b->failed = 1;
    }
    return b->failed ? -1 : n;
}

defs *defs_deserialize(const char *buf, size_t len)
{
    rbuf b = { buf, len, 0, 0 };
    defs *d = defs_new();
    int *smap = calloc(len / sizeof(int32_t) + 1, sizeof(int));
    if (!d || !smap)
        goto fail;
    int ns = read_strings(&b, d, smap);
    if (ns < 0)
        goto fail;
    int32_t nr = get_count(&b, 6 * sizeof(int32_t));
    defs_reserve(d, 0, nr, 0);
    for (int i = 0; i < nr && !b.failed; i++) {
        int32_t v[6];
        for (int k = 0; k < 6; k++)
            v[k] = get_i32(&b);
        if (!valid_ref(v[0], ns) || !valid_ref(v[1], ns) || !valid_ref(v[2], ns) || !valid_ref(v[3], ns))
            goto fail;
        def_region r = { v[0], v[1], v[2], v[3], v[4], v[5] };
        if (defs_region(d, &r) != i)
            goto fail;
    }
    int32_t nc = get_count(&b, 4 * sizeof(int32_t));
    defs_reserve(d, 0, 0, nc);
    for (int i = 0; i < nc && !b.failed; i++) {
        int32_t v[4];
        for (int k = 0; k < 4; k++)
            v[k] = get_i32(&b);
        if (!valid_ref(v[0], i) || v[1] < 0 || v[1] >= nr || !valid_ref(v[2], ns))
            goto fail;
        def_cnode c = { v[0], v[1], v[2], v[3] };
        if (defs_cnode(d, &c) != i)
            goto fail;
    }
    if (b.failed || b.pos != len)
        goto fail;
    free(smap);
    return d;
fail:
    free(smap);
    defs_free(d);
    return NULL;
}

/* ---- unification ------------------------------------------------------ */

/* from's string id -> into's (-1 stays -1): each string is hashed once,
 * not once per cnode that names it. */
static int *absorb_strings(defs *into, const defs *from)
{
    int *smap = malloc(((size_t)from->nstrings + 1) * sizeof(int));
    for (int i = 0; smap && i < from->nstrings; i++)
        if ((smap[i] = defs_string(into, from->strings[i])) < 0) {
            free(smap);
            return NULL;
        }
    return smap;
}

static int mapped(const int *smap, int id) { return id < 0 ? -1 : smap[id]; }

int defs_absorb(defs *into, const defs *from, int *cnode_map)
{
    /* sized for from's definitions (ranks share most of theirs) */
    defs_reserve(into, from->nstrings - into->nstrings, from->nregions - into->nregions,
                 from->ncnodes - into->ncnodes);
    int *smap = absorb_strings(into, from);
    int *rmap = malloc(((size_t)from->nregions + 1) * sizeof(int));
    int *cmap = cnode_map ? cnode_map : malloc(((size_t)from->ncnodes + 1) * sizeof(int));
    int rc = -1;
    if (!smap || !rmap || !cmap)
        goto out;
    for (int i = 0; i < from->nregions; i++) {
        const def_region *r = &from->regions[i];
        def_region nr = { mapped(smap, r->name), mapped(smap, r->mangled), mapped(smap, r->module),
                          mapped(smap, r->file), r->begin_line, r->kind };
        if ((rmap[i] = defs_region(into, &nr)) < 0)
            goto out;
    }
    /* Parents precede children in `from`, so cmap[parent] is known in time. */
    for (int i = 0; i < from->ncnodes; i++) {
        const def_cnode *c = &from->cnodes[i];
        def_cnode nc = { c->parent < 0 ? -1 : cmap[c->parent], rmap[c->region],
                         mapped(smap, c->cs_file), c->cs_line };
        if ((cmap[i] = defs_cnode(into, &nc)) < 0)
            goto out;
    }
    rc = 0;
out:
    free(smap);
    free(rmap);
    if (cmap != cnode_map)
        free(cmap);
    return rc;
}
