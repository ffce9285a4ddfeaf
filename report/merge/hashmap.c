/*
 * hashmap.c - open addressing with linear probing; entries point into an
 * append-only key arena (keys are never removed).
 */
#include "hashmap.h"

#include <stdlib.h>
#include <string.h>

typedef struct entry {
    uint64_t hash;  /* 0: empty */
    size_t off, len;
    long value;
} entry;

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

size_t hmap_size(const hmap *m) { return m->count; }

static entry *find(const hmap *m, const void *key, size_t len, uint64_t h)
{
    for (size_t i = h & m->mask;; i = (i + 1) & m->mask) {
        entry *e = &m->slots[i];
        if (e->hash == 0)
            return e;
        if (e->hash == h && e->len == len && memcmp(m->keys + e->off, key, len) == 0)
            return e;
    }
}

long hmap_get(const hmap *m, const void *key, size_t len)
{
    entry *e = find(m, key, len, hash_bytes(key, len));
    return e->hash ? e->value : -1;
}

static int grow(hmap *m)
{
    size_t n = (m->mask + 1) * 2;
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

long hmap_put(hmap *m, const void *key, size_t len, long value)
{
    if ((m->count + 1) * 2 > m->mask + 1 && grow(m) != 0)
        return -2;
    uint64_t h = hash_bytes(key, len);
    entry *e = find(m, key, len, h);
    if (e->hash)
        return e->value;
    size_t off = m->keys_len;
    if (store_key(m, key, len) != 0)
        return -2;
    e->hash = h;
    e->off = off;
    e->len = len;
    e->value = value;
    m->count++;
    return value;
}
