/*
 * requests.c - the request table (see requests.h).
 */
#include "wrappers/requests.h"

#include <string.h>

#define KEY_EMPTY ((uintptr_t)0)
#define KEY_TOMB (~(uintptr_t)0)

typedef struct slot {
    uintptr_t key; /* accessed atomically */
    unsigned flags;
    uint64_t sent, recv;
} slot;

static slot table[HPROF_REQ_CAPACITY];
long hprof_req_live_count;
static long untracked_count;

static inline uint32_t home_of(uintptr_t key)
{
    uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ull; /* Fibonacci hashing */
    h ^= h >> 29;
    return (uint32_t)(h >> 32) & (HPROF_REQ_CAPACITY - 1);
}

static inline uintptr_t load_key(const slot *s)
{
    return __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
}

/* The slot holding key, or NULL. Stops at the first never-used slot: slots
 * never go back to empty, so key cannot lie beyond one. */
static slot *find(uintptr_t key)
{
    uint32_t i = home_of(key);
    for (int n = 0; n < HPROF_REQ_MAX_PROBE; n++, i = (i + 1) & (HPROF_REQ_CAPACITY - 1)) {
        uintptr_t k = load_key(&table[i]);
        if (k == key)
            return &table[i];
        if (k == KEY_EMPTY)
            return NULL;
    }
    return NULL;
}

int hprof_req_insert(uintptr_t key, const hprof_req_info *info)
{
    if (key == KEY_EMPTY || key == KEY_TOMB)
        return -1;
    slot *s = find(key); /* a stale entry of a reused handle */
    if (!s) {
        uint32_t i = home_of(key);
        for (int n = 0; n < HPROF_REQ_MAX_PROBE && !s; n++, i = (i + 1) & (HPROF_REQ_CAPACITY - 1)) {
            uintptr_t k = load_key(&table[i]);
            while (k == KEY_EMPTY || k == KEY_TOMB) {
                if (__atomic_compare_exchange_n(&table[i].key, &k, key, 0, __ATOMIC_ACQ_REL,
                                                __ATOMIC_ACQUIRE)) {
                    s = &table[i];
                    __atomic_add_fetch(&hprof_req_live_count, 1, __ATOMIC_RELAXED);
                    break;
                }
                /* lost the race: k now holds the winner's key; if it is
                 * free again (removed meanwhile) try once more */
            }
        }
        if (!s) {
            __atomic_add_fetch(&untracked_count, 1, __ATOMIC_RELAXED);
            return -1;
        }
    }
    s->flags = info->flags;
    s->sent = info->sent;
    s->recv = info->recv;
    __atomic_thread_fence(__ATOMIC_RELEASE);
    return 0;
}

int hprof_req_lookup(uintptr_t key, hprof_req_info *info)
{
    if (key == KEY_EMPTY || key == KEY_TOMB)
        return 0;
    slot *s = find(key);
    if (!s)
        return 0;
    info->flags = s->flags;
    info->sent = s->sent;
    info->recv = s->recv;
    return 1;
}

int hprof_req_remove(uintptr_t key)
{
    if (key == KEY_EMPTY || key == KEY_TOMB)
        return 0;
    slot *s = find(key);
    if (!s)
        return 0;
    uintptr_t k = key;
    if (!__atomic_compare_exchange_n(&s->key, &k, KEY_TOMB, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return 0;
    __atomic_sub_fetch(&hprof_req_live_count, 1, __ATOMIC_RELAXED);
    return 1;
}

long hprof_req_untracked(void)
{
    return __atomic_load_n(&untracked_count, __ATOMIC_RELAXED);
}

void hprof_req_reset(void)
{
    memset(table, 0, sizeof table);
    hprof_req_live_count = 0;
    untracked_count = 0;
}
