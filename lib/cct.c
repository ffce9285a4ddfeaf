/*
 * cct.c - calling context tree storage: a node array plus an open-addressing
 * hash index on (parent, key). Nodes are never removed, so the index needs no
 * tombstones and a probe ends at the first empty slot.
 */
#include "cct.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void *map_zeroed(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void unmap(void *p, size_t bytes)
{
    if (p)
        munmap(p, bytes);
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

int cct_init(cct *t, uint32_t initial_nodes, uint32_t max_nodes)
{
    memset(t, 0, sizeof *t);
    t->max_nodes = max_nodes;
    if (cct_reserve(t, initial_nodes < 2 ? 2 : initial_nodes) != 0)
        return -1;
    t->nnodes = 1;
    t->nodes[0].key = 0;
    t->nodes[0].parent = CCT_NONE;
    cct_node_init_counters(&t->nodes[0]);
    t->full_node = cct_child(t, CCT_ROOT, CCT_KEY_TREE_FULL);
    return 0;
}

void cct_free(cct *t)
{
    unmap(t->nodes, (size_t)t->node_cap * sizeof(cct_node));
    unmap(t->slots, ((size_t)t->slot_mask + 1) * sizeof(uint32_t));
    memset(t, 0, sizeof *t);
}

static void index_insert(uint32_t *slots, uint32_t mask, const cct_node *nodes, uint32_t id)
{
    uint32_t i = slot_hash(nodes[id].parent, nodes[id].key) & mask;
    while (slots[i] != 0)
        i = (i + 1) & mask;
    slots[i] = id; /* 0 is the root, never indexed, so 0 marks an empty slot */
}

/* Rebuilds the index at twice the node capacity, so it stays at most half full. */
static int rebuild_index(cct *t, uint32_t node_cap)
{
    uint32_t nslots = 16;
    while (nslots < 2 * node_cap)
        nslots *= 2;
    uint32_t *slots = map_zeroed((size_t)nslots * sizeof(uint32_t));
    if (!slots)
        return -1;
    for (uint32_t id = 1; id < t->nnodes; id++)
        index_insert(slots, nslots - 1, t->nodes, id);
    unmap(t->slots, ((size_t)t->slot_mask + 1) * sizeof(uint32_t));
    t->slots = slots;
    t->slot_mask = nslots - 1;
    return 0;
}

int cct_reserve(cct *t, uint32_t more)
{
    uint64_t need = (uint64_t)t->nnodes + more;
    if (need <= t->node_cap)
        return 0;
    if (need > t->max_nodes)
        return -1;
    uint64_t cap = t->node_cap ? t->node_cap : 256;
    while (cap < need)
        cap *= 2;
    if (cap > t->max_nodes)
        cap = t->max_nodes;
    cct_node *nodes = map_zeroed((size_t)cap * sizeof(cct_node));
    if (!nodes)
        return -1;
    if (t->nodes)
        memcpy(nodes, t->nodes, (size_t)t->nnodes * sizeof(cct_node));
    cct_node *old = t->nodes;
    uint32_t old_cap = t->node_cap;
    t->nodes = nodes;
    t->node_cap = (uint32_t)cap;
    unmap(old, (size_t)old_cap * sizeof(cct_node));
    return rebuild_index(t, (uint32_t)cap);
}

uint32_t cct_child(cct *t, uint32_t parent, uint64_t key)
{
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
