/*
 * hashmap.h - a map from byte-string keys to ints, for finalize-time
 * bookkeeping (unifying strings, regions, call-tree nodes; caching symbol
 * lookups). Keys are copied into the map. Not for hot paths.
 */
#ifndef HPROF_HASHMAP_H
#define HPROF_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct hmap hmap;

hmap *hmap_new(void);
void hmap_free(hmap *m);
/* The value stored for key, or -1 if absent. */
long hmap_get(const hmap *m, const void *key, size_t len);
/* Stores value for key unless present; returns the value now stored, or -2
 * when out of memory. */
long hmap_put(hmap *m, const void *key, size_t len, long value);
size_t hmap_size(const hmap *m);
/* Makes room for n entries in all, so that filling it rehashes nothing.
 * Returns 0, or -1 when out of memory (the map stays as it was). */
int hmap_reserve(hmap *m, size_t n);

#endif
