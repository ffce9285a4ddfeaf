/* idset.c - open addressing with linear probing over (hash, id) slots. */
#include "core/idset.h"

#include <stdlib.h>

int idset_init(idset *s)
{
    s->slots = calloc(64, sizeof *s->slots);
    s->mask = 63;
    s->count = 0;
    return s->slots ? 0 : -1;
}

void idset_free(idset *s)
{
    free(s->slots);
    s->slots = NULL;
}

/* Rehashes into n slots (a power of two): the stored hash places each id. */
static int resize(idset *s, size_t n)
{
    uint64_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i <= s->mask; i++) {
        uint64_t v = s->slots[i];
        if (!v)
            continue;
        size_t j = (v >> 32) & (n - 1);
        while (slots[j])
            j = (j + 1) & (n - 1);
        slots[j] = v;
    }
    free(s->slots);
    s->slots = slots;
    s->mask = n - 1;
    return 0;
}

int idset_reserve(idset *s, size_t n)
{
    size_t slots = s->mask + 1;
    while (n * 2 > slots)
        slots *= 2;
    return slots == s->mask + 1 ? 0 : resize(s, slots);
}

int idset_insert(idset *s, uint64_t *at, uint32_t h, int id)
{
    uint64_t v = (uint64_t)h << 32 | (uint32_t)(id + 1);
    if ((s->count + 1) * 2 > s->mask + 1) {
        if (resize(s, (s->mask + 1) * 2) != 0)
            return -1;
        size_t i = h & s->mask;
        while (s->slots[i])
            i = (i + 1) & s->mask;
        at = &s->slots[i];
    }
    *at = v;
    s->count++;
    return 0;
}
