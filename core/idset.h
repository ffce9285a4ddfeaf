/*
 * idset.h - an index of the ids of entries that live in the caller's own
 * array (the cnodes of a profile): a slot holds an id and 32 bits of its
 * hash, 8 bytes, and the caller compares candidates against its array. A
 * million call paths cost 16 MB of index, where a map that copies its keys
 * took 80 (issue 15.8). Ids are never removed.
 */
#ifndef HPROF_IDSET_H
#define HPROF_IDSET_H

#include <stddef.h>
#include <stdint.h>

typedef struct idset {
    uint64_t *slots; /* hash << 32 | (id + 1); 0: empty */
    size_t mask, count;
} idset;

int idset_init(idset *s);
void idset_free(idset *s);
/* Room for n ids in all without rehashing: 0, or -1 (left as it was). */
int idset_reserve(idset *s, size_t n);

/* The slot holding an id with hash h that same(ctx, id) accepts, or the
 * empty slot where it belongs. */
static inline uint64_t *idset_find(const idset *s, uint32_t h, int (*same)(const void *, int),
                                   const void *ctx)
{
    for (size_t i = h & s->mask;; i = (i + 1) & s->mask) {
        uint64_t v = s->slots[i];
        if (v == 0 || ((uint32_t)(v >> 32) == h && same(ctx, (int)(uint32_t)v - 1)))
            return &s->slots[i];
    }
}

/* Fills the empty slot `at` (from idset_find) with id; may rehash. 0 or -1. */
int idset_insert(idset *s, uint64_t *at, uint32_t h, int id);

#endif
