/*
 * cct.c - calling context tree storage: a node array plus an open-addressing
 * hash index on (parent, key). Nodes are never removed, so the index needs no
 * tombstones and a probe ends at the first empty slot.
 */
#include "core/cct.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Address space for the whole cap is reserved at once and the kernel
 * commits pages as they are first touched, so the tree never moves or
 * rehashes: the signal handler can add nodes up to the cap like the
 * wrappers do, also on threads that never make an MPI call. */
static void *reserve_zeroed(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static inline uint32_t slot_hash(uint32_t parent, uint64_t key)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull ^ ((uint64_t)parent * 0xC2B2AE3D27D4EB4Full);
    return (uint32_t)(h ^ (h >> 29));
}

void cct_node_init_counters(cct_node *n)
{
    memset(n->counter, 0, sizeof n->counter);
    n->counter[CCT_MIN_NS] = UINT64_MAX;
}

static size_t slot_count(uint32_t max_nodes)
{
    size_t n = 16;
    while (n < 2 * (size_t)max_nodes) /* at most half full */
        n *= 2;
    return n;
}

int cct_init(cct *t, uint32_t initial_nodes, uint32_t max_nodes)
{
    (void)initial_nodes; /* pages are committed as the tree grows */
    memset(t, 0, sizeof *t);
    if (max_nodes < 2)
        max_nodes = 2;
    size_t nslots = slot_count(max_nodes);
    t->nodes = reserve_zeroed((size_t)max_nodes * sizeof(cct_node));
    t->slots = reserve_zeroed(nslots * sizeof(uint32_t));
    if (!t->nodes || !t->slots) {
        cct_free(t);
        return -1;
    }
    t->node_cap = t->max_nodes = max_nodes;
    t->slot_mask = (uint32_t)(nslots - 1);
    t->nnodes = 1;
    t->nodes[0].key = 0;
    t->nodes[0].parent = CCT_NONE;
    cct_node_init_counters(&t->nodes[0]);
    t->full_node = cct_child(t, CCT_ROOT, CCT_KEY_TREE_FULL);
    return 0;
}

void cct_free(cct *t)
{
    if (t->compact)
        free(t->nodes);
    else if (t->nodes)
        munmap(t->nodes, (size_t)t->max_nodes * sizeof(cct_node));
    if (t->slots)
        munmap(t->slots, ((size_t)t->slot_mask + 1) * sizeof(uint32_t));
    memset(t, 0, sizeof *t);
}

int cct_reserve(cct *t, uint32_t more)
{
    return (uint64_t)t->nnodes + more <= t->node_cap ? 0 : -1;
}

uint32_t cct_child(cct *t, uint32_t parent, uint64_t key)
{
    if (!t->slots)
        return CCT_NONE; /* compacted */
    uint32_t i = slot_hash(parent, key) & t->slot_mask;
    for (;;) {
        uint32_t id = t->slots[i];
        if (id == 0)
            break;
        if (t->nodes[id].key == key && t->nodes[id].parent == parent)
            return id;
        i = (i + 1) & t->slot_mask;
    }
    if (t->nnodes >= t->node_cap) {
        t->overflows++;
        return CCT_NONE;
    }
    uint32_t id = t->nnodes;
    cct_node *n = &t->nodes[id];
    n->key = key;
    n->parent = parent;
    cct_node_init_counters(n);
    /* Publish the node before indexing it, so a reader never sees a slot
     * pointing at an unfilled node. */
    __atomic_store_n(&t->nnodes, id + 1, __ATOMIC_RELEASE);
    __atomic_store_n(&t->slots[i], id, __ATOMIC_RELEASE);
    return id;
}

uint32_t cct_path(cct *t, const uint64_t *keys, int n)
{
    uint32_t node = CCT_ROOT;
    for (int i = n - 1; i >= 0 && node != CCT_NONE; i--)
        node = cct_child(t, node, keys[i]);
    return node;
}

static void add_node(cct_node *d, const cct_node *s)
{
    for (int i = 0; i < CCT_NCOUNTERS; i++) {
        if (i == CCT_MIN_NS)
            d->counter[i] = s->counter[i] < d->counter[i] ? s->counter[i] : d->counter[i];
        else if (i == CCT_MAX_NS)
            d->counter[i] = s->counter[i] > d->counter[i] ? s->counter[i] : d->counter[i];
        else
            d->counter[i] += s->counter[i];
    }
    for (int i = 0; i < HPROF_MAX_EVENTS; i++)
        d->event[i] += s->event[i];
}

int cct_merge(cct *dst, const cct *src, uint32_t **map_out)
{
    uint32_t n = src->nnodes;
    uint32_t *map = malloc((size_t)n * sizeof *map);
    if (!map)
        return -1;
    map[CCT_ROOT] = CCT_ROOT;
    add_node(&dst->nodes[CCT_ROOT], &src->nodes[CCT_ROOT]);
    /* Ids grow from parents to children: map[parent] is known. Below a
     * path that found no room, everything goes to (call tree full). */
    for (uint32_t id = 1; id < n; id++) {
        const cct_node *s = &src->nodes[id];
        uint32_t parent = map[s->parent];
        uint32_t d = parent == dst->full_node ? CCT_NONE : cct_child(dst, parent, s->key);
        map[id] = cct_or_full(dst, d);
        add_node(&dst->nodes[map[id]], s);
    }
    if (map_out)
        *map_out = map;
    else
        free(map);
    return 0;
}

int cct_compact(cct *t)
{
    if (t->compact)
        return 0;
    size_t bytes = (size_t)t->nnodes * sizeof(cct_node);
    cct_node *nodes = malloc(bytes ? bytes : 1);
    if (!nodes)
        return -1;
    memcpy(nodes, t->nodes, bytes);
    munmap(t->nodes, (size_t)t->max_nodes * sizeof(cct_node));
    munmap(t->slots, ((size_t)t->slot_mask + 1) * sizeof(uint32_t));
    t->nodes = nodes;
    t->slots = NULL;
    t->node_cap = t->nnodes; /* cct_reserve refuses any growth */
    t->compact = 1;
    return 0;
}
