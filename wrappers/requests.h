/*
 * requests.h - the request table: what hprof remembers about live MPI requests.
 *
 * A fixed-capacity, preallocated, lock-free open-addressing hash table keyed
 * by the value of an MPI_Request handle (an int in MPICH, a pointer in Open
 * MPI; callers copy its bytes into a uintptr_t). Only requests whose bytes are
 * counted later are stored: nonblocking and persistent receives (bytes from
 * the status at completion) and persistent operations (bytes remembered at
 * the init call, counted at each MPI_Start).
 *
 * Concurrency: inserts claim a slot with a compare-and-swap on the key, so
 * threads may insert, look up and remove different requests at the same
 * time. One request handle is used by one thread at a time (MPI's own rule);
 * a handle passed to another thread is published by the program's own
 * synchronisation, which also publishes the entry's fields.
 * Deletion leaves a tombstone that later inserts reuse. Probing is bounded
 * (HPROF_REQ_MAX_PROBE slots), so a lookup never scans the whole table.
 * When no free slot is found within that window the table counts as full:
 * the insert fails (hprof_req_insert returns -1), the request is untracked and
 * its received bytes are not counted (hprof_req_untracked() tells how often).
 * Nothing here allocates, locks or calls MPI; it is unit-tested without MPI.
 */
#ifndef HPROF_REQUESTS_H
#define HPROF_REQUESTS_H

#include <stdint.h>

#define HPROF_REQ_CAPACITY (1u << 16) /* slots, a power of two */
#define HPROF_REQ_MAX_PROBE 128       /* slots probed per operation */

#define HPROF_REQ_RECV 0x1u       /* count received bytes from the status at completion */
#define HPROF_REQ_PERSISTENT 0x2u /* survives completion; stored bytes counted at each start */

typedef struct hprof_req_info {
    unsigned flags;
    uint64_t sent; /* persistent: bytes sent per start */
    uint64_t recv; /* persistent: bytes received per start (not from a status) */
} hprof_req_info;

/* Insert or replace. Returns 0, or -1 when the table is full (or key is a
 * reserved value: 0 and UINTPTR_MAX). */
int hprof_req_insert(uintptr_t key, const hprof_req_info *info);
/* Returns 1 and fills *info when found, else 0. */
int hprof_req_lookup(uintptr_t key, hprof_req_info *info);
/* Returns 1 when an entry was removed, else 0. */
int hprof_req_remove(uintptr_t key);
/* Number of live entries (approximate while other threads change the
 * table); inline: every completion wrapper asks. */
extern long hprof_req_live_count __attribute__((visibility("hidden")));
static inline long hprof_req_live(void)
{
    return __atomic_load_n(&hprof_req_live_count, __ATOMIC_RELAXED);
}
/* Number of inserts that failed because the table was full. */
long hprof_req_untracked(void);
/* Empties the table (tests only; not thread-safe). */
void hprof_req_reset(void);

#endif
