/*
 * cct.h - a thread's calling context tree, keyed by raw addresses.
 *
 * A node stands for one frame on a call path and is keyed by (parent node,
 * key), where key is the frame's return address (an address inside the
 * function of that frame, at the call it made) or, for leaves, an encoded
 * MPI function id. Nothing is resolved to names on the hot path: the
 * addresses are turned into regions and call sites once per distinct
 * address at finalize (report/profile/local_profile.c), where nodes that map to
 * the same (region, call site) are folded together.
 *
 * Storage for the whole cap (HPROF_MAX_CALLPATHS nodes) is reserved as
 * address space when the tree is made; pages are committed as nodes are
 * added. Nothing ever moves, so the signal handler and the wrappers add
 * nodes alike, and a lookup past the cap fails (returns CCT_NONE).
 */
#ifndef HPROF_CCT_H
#define HPROF_CCT_H

#include <stdint.h>
#include <stddef.h>

#define CCT_ROOT 0u
#define CCT_NONE UINT32_MAX

/* Keys that are code addresses lie in (0, CCT_KEY_CODE_LIMIT): user space
 * on every 64-bit Linux ends below 2^56, on x86_64 below 2^47. The
 * unwinders put no other value read off a stack into a tree
 * (cct_key_is_code), so the keys below, with their top 16 bits set and a
 * 16-bit tag under them, cannot be forged by a garbage return address. */
#define CCT_KEY_CODE_LIMIT (1ull << 56)
#define CCT_KEY_MPI_TAG 0xFFFF4D5000000000ull /* "MP" */
#define CCT_KEY_MPI_FN(fn) (CCT_KEY_MPI_TAG | (uint64_t)(uint32_t)(fn))
#define CCT_KEY_NOT_UNWOUND 0xFFFE000000000000ull
#define CCT_KEY_UNWIND_FAILED 0xFFFE000000000001ull
#define CCT_KEY_TREE_FULL 0xFFFE000000000002ull /* what arrived once the tree was at its cap */

static inline int cct_key_is_code(uint64_t k)
{
    return k != 0 && k < CCT_KEY_CODE_LIMIT;
}

/* The MPI function id of key k, or -1 when k is not an MPI function's key
 * or its id is not below count (the size of hprof_fn_table). */
static inline int cct_key_mpi_fn(uint64_t k, int count)
{
    if ((k & 0xFFFFFFFF00000000ull) != CCT_KEY_MPI_TAG)
        return -1;
    uint64_t id = k & 0xFFFFFFFFull;
    return id < (uint64_t)(count > 0 ? count : 0) ? (int)id : -1;
}

/* A Python function's frame (unwind/python/py_splice.h): its code object's entry
 * in the table of code met (unwind/python/py_codes.h) and the instruction it is
 * at, in code units (the line follows from the entry's copy of the line
 * table). Top 16 bits 0xFFFC: no address, no other key. */
#define CCT_KEY_PY_ENTRY_MAX 0xFFFFFu
#define CCT_KEY_PY_OFFSET_MAX 0xFFFFFFFu
#define CCT_KEY_PY(entry, off) (0xFFFC000000000000ull | (uint64_t)(entry) << 28 | (uint64_t)(off))
#define CCT_KEY_IS_PY(k) (((k) >> 48) == 0xFFFCu)
#define CCT_KEY_PY_ENTRY(k) ((uint32_t)(((k) >> 28) & CCT_KEY_PY_ENTRY_MAX))
#define CCT_KEY_PY_OFFSET(k) ((uint32_t)((k)&CCT_KEY_PY_OFFSET_MAX))

/* An address in code that was unloaded (dlclose) after it was recorded:
 * the module record (unwind/modules.h) that was mapped there then, and the
 * address. Top bits 01: no address, no MPI or artificial key. */
#define CCT_KEY_UNLOADED_MAX 0x3FFF /* module ids that fit */
#define CCT_KEY_UNLOADED(id, a) ((uint64_t)(0x4000u | (uint32_t)(id)) << 48 | ((a)&0xFFFFFFFFFFFFull))
#define CCT_KEY_IS_UNLOADED(k) (((k) >> 62) == 1)
#define CCT_KEY_UNLOADED_ID(k) ((int)(((k) >> 48) & 0x3FFF))
#define CCT_KEY_ADDRESS(k) ((k)&0xFFFFFFFFFFFFull)

enum cct_counter {
    CCT_VISITS,
    CCT_MPI_TIME_NS,
    CCT_MIN_NS, /* UINT64_MAX until the first visit */
    CCT_MAX_NS,
    CCT_BYTES_SENT,
    CCT_BYTES_RECEIVED,
    CCT_BYTES_PUT,
    CCT_BYTES_GET,
    CCT_IO_BYTES_READ,
    CCT_IO_BYTES_WRITTEN,
    CCT_COMP_TIME_NS,
    CCT_SAMPLES,
    CCT_UNWIND_FAILURES,
    CCT_CALLS_NOT_UNWOUND,
    CCT_POLLS_FAILED,    /* polls (MPI_Test*, MPI_Iprobe, MPI_Improbe) that completed nothing */
    CCT_POLLS_FAILED_NS, /* their time, part of CCT_MPI_TIME_NS */
    /* A function measured exactly (lib/exact/): its node, keyed by its
     * entry address + 1, counts its calls, their time from entry to exit,
     * and that time less the exactly measured calls they made */
    CCT_EXACT_VISITS,
    CCT_EXACT_NS,
    CCT_EXACT_SELF_NS,
    /* A snapshot of a running job (lib/ending/live_snapshot.h): where each thread
     * was, the node of the MPI call under way (its time in it so far) or of
     * its last sample (the time since) */
    CCT_NOW_NS,
    CCT_NCOUNTERS
};

/* PAPI events per node (HPROF_METRICS, lib/sampling/papi_events.h): signed deltas, zero from
 * the zeroed mapping a node is created in (nodes are never reused). */
#ifdef HPROF_PAPI
#define HPROF_MAX_EVENTS 8
#else
#define HPROF_MAX_EVENTS 1
#endif

typedef struct cct_node {
    uint64_t key;
    uint32_t parent;
    uint64_t counter[CCT_NCOUNTERS];
    int64_t event[HPROF_MAX_EVENTS];
} cct_node;

typedef struct cct {
    cct_node *nodes; /* nodes[0] is the root */
    uint32_t nnodes, node_cap;
    uint32_t *slots; /* open-addressing index of nodes by (parent, key) */
    uint32_t slot_mask;
    uint32_t max_nodes; /* cap on growth */
    uint64_t overflows; /* lookups refused for lack of room */
    uint32_t full_node; /* the root's (call tree full) child, made at init */
    int compact;        /* nodes in a malloc'd block of nnodes, no index (cct_compact) */
} cct;

int cct_init(cct *t, uint32_t initial_nodes, uint32_t max_nodes);
void cct_free(cct *t);

/* 0 if `more` nodes fit under the cap, else -1. */
int cct_reserve(cct *t, uint32_t more);

/* The child of `parent` with `key`, created if absent and room allows. */
uint32_t cct_child(cct *t, uint32_t parent, uint64_t key);

/* Walks a path from the root: keys[n-1] is outermost, keys[0] innermost. */
uint32_t cct_path(cct *t, const uint64_t *keys, int n);

void cct_node_init_counters(cct_node *n);

/* Adds every path of src, with its counts and events, into dst (sums;
 * shortest and longest call: min and max), so that totals over both stay
 * what they were. Paths that find no room in dst land on dst's (call tree
 * full) node. 0, or -1 when out of memory (dst then holds part of src).
 * map_out (may be NULL) receives src's node ids -> dst's (malloc'd).
 * Not from signal handlers; dst must be nobody's live tree. */
int cct_merge(cct *dst, const cct *src, uint32_t **map_out);

/* An ended thread's tree, kept as it is: its nodes move to a block of
 * their exact size and the reservation and the index go (nothing looks a
 * node up again; cct_child returns CCT_NONE). 0, or -1 (left as it was). */
int cct_compact(cct *t);

/* node, or the (call tree full) node when node is CCT_NONE. */
static inline uint32_t cct_or_full(const cct *t, uint32_t node)
{
    return node == CCT_NONE ? t->full_node : node;
}

#endif
