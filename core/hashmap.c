/*
 * hashmap.c - open addressing with linear probing; keys of up to 16 bytes
 * (the int tuples of regions and cnodes, addresses) sit in the entry, so a
 * probe that hits touches one cache line; longer keys (strings) point into
 * an append-only key arena (keys are never removed).
 */
#include "core/hashmap.h"

#include <stdlib.h>
#include <string.h>

#define INLINE_KEY 16

typedef struct entry {
    uint64_t hash; /* 0: empty */
    size_t len;
    long value;
    union {
        size_t off;                    /* len > INLINE_KEY: in the arena */
        unsigned char key[INLINE_KEY]; /* len <= INLINE_KEY */
    } k;
} entry;

static const void *key_of(const hmap *m, const entry *e);

struct hmap {
    entry *slots;
    size_t mask, count;
    char *keys;
    size_t keys_len, keys_cap;
};

static uint64_t hash_bytes(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a, then a final mix */
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h ? h : 1;
}

hmap *hmap_new(void)
{
    hmap *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->slots = calloc(64, sizeof(entry));
    if (!m->slots) {
        free(m);
        return NULL;
    }
    m->mask = 63;
    return m;
}

void hmap_free(hmap *m)
{
    if (!m)
        return;
    free(m->slots);
    free(m->keys);
    free(m);
}

size_t hmap_size(const hmap *m)
{
    return m->count;
}

static const void *key_of(const hmap *m, const entry *e)
{
    return e->len <= INLINE_KEY ? (const void *)e->k.key : (const void *)(m->keys + e->k.off);
}

static entry *find(const hmap *m, const void *key, size_t len, uint64_t h)
{
    for (size_t i = h & m->mask;; i = (i + 1) & m->mask) {
        entry *e = &m->slots[i];
        if (e->hash == 0)
            return e;
        if (e->hash == h && e->len == len && memcmp(key_of(m, e), key, len) == 0)
            return e;
    }
}

long hmap_get(const hmap *m, const void *key, size_t len)
{
    entry *e = find(m, key, len, hash_bytes(key, len));
    return e->hash ? e->value : -1;
}

/* Rehashes into n slots (a power of two). */
static int resize(hmap *m, size_t n)
{
    entry *slots = calloc(n, sizeof(entry));
    if (!slots)
        return -1;
    for (size_t i = 0; i <= m->mask; i++) {
        entry *e = &m->slots[i];
        if (!e->hash)
            continue;
        size_t j = e->hash & (n - 1);
        while (slots[j].hash)
            j = (j + 1) & (n - 1);
        slots[j] = *e;
    }
    free(m->slots);
    m->slots = slots;
    m->mask = n - 1;
    return 0;
}

static int store_key(hmap *m, const void *key, size_t len)
{
    if (m->keys_len + len > m->keys_cap) {
        size_t cap = m->keys_cap ? m->keys_cap : 4096;
        while (cap < m->keys_len + len)
            cap *= 2;
        char *k = realloc(m->keys, cap);
        if (!k)
            return -1;
        m->keys = k;
        m->keys_cap = cap;
    }
    memcpy(m->keys + m->keys_len, key, len);
    m->keys_len += len;
    return 0;
}

static int grow(hmap *m)
{
    return resize(m, (m->mask + 1) * 2);
}

int hmap_reserve(hmap *m, size_t n)
{
    size_t slots = m->mask + 1;
    while (n * 2 > slots)
        slots *= 2;
    return slots == m->mask + 1 ? 0 : resize(m, slots);
}

long hmap_put(hmap *m, const void *key, size_t len, long value)
{
    if ((m->count + 1) * 2 > m->mask + 1 && grow(m) != 0)
        return -2;
    uint64_t h = hash_bytes(key, len);
    entry *e = find(m, key, len, h);
    if (e->hash)
        return e->value;
    if (len <= INLINE_KEY) {
        memcpy(e->k.key, key, len);
    } else {
        e->k.off = m->keys_len;
        if (store_key(m, key, len) != 0)
            return -2;
    }
    e->hash = h;
    e->len = len;
    e->value = value;
    m->count++;
    return value;
}
