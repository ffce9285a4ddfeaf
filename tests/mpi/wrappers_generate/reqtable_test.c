/* Unit test of wrappers/requests.c (no MPI): insert / lookup / remove,
 * tombstone reuse, a full table, concurrent inserts from threads.
 * Prints 'ok - NAME' / 'not ok - NAME: reason' lines. */
#include "wrappers/requests.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;
static void check(int cond, const char *name, const char *why)
{
    if (cond)
        printf("ok - reqtable %s\n", name);
    else {
        printf("not ok - reqtable %s: %s\n", name, why);
        failures++;
    }
}

#define NTHREADS 4
#define PER_THREAD 4000
static void *inserter(void *arg)
{
    uintptr_t base = (uintptr_t)arg;
    for (uintptr_t i = 0; i < PER_THREAD; i++) {
        hprof_req_info in = { HPROF_REQ_RECV, base + i, 0 };
        if (hprof_req_insert(0x10000 + base + i * 64, &in) != 0)
            return (void *)1;
    }
    /* remove half again, concurrently with the other threads' inserts */
    for (uintptr_t i = 0; i < PER_THREAD; i += 2)
        if (!hprof_req_remove(0x10000 + base + i * 64))
            return (void *)2;
    return NULL;
}

int main(void)
{
    hprof_req_info in = { HPROF_REQ_RECV | HPROF_REQ_PERSISTENT, 11, 22 }, out;

    hprof_req_reset();
    check(hprof_req_insert(0x1234, &in) == 0, "insert", "insert failed");
    check(hprof_req_lookup(0x1234, &out) && out.flags == in.flags && out.sent == 11 && out.recv == 22,
          "lookup", "entry not found or wrong fields");
    check(!hprof_req_lookup(0x1235, &out), "lookup absent", "found a key never inserted");
    check(hprof_req_live() == 1, "live count", "live != 1");
    in.sent = 33;
    check(hprof_req_insert(0x1234, &in) == 0 && hprof_req_lookup(0x1234, &out) && out.sent == 33 &&
              hprof_req_live() == 1,
          "reinsert replaces", "second insert of a key not an update");
    check(hprof_req_remove(0x1234) && !hprof_req_lookup(0x1234, &out) && hprof_req_live() == 0, "remove",
          "still found after remove");
    check(!hprof_req_remove(0x1234), "remove absent", "removed twice");
    check(hprof_req_insert(0, &in) == -1 && hprof_req_insert(~(uintptr_t)0, &in) == -1, "reserved keys",
          "reserved key accepted");

    /* tombstone reuse: insert/remove many distinct keys; the table must not fill up */
    hprof_req_reset();
    int okc = 1;
    for (uintptr_t k = 1; k <= 20 * HPROF_REQ_CAPACITY && okc; k++) {
        if (hprof_req_insert(k * 8, &in) != 0)
            okc = 0;
        if (!hprof_req_remove(k * 8))
            okc = 0;
    }
    check(okc && hprof_req_untracked() == 0 && hprof_req_live() == 0, "tombstone reuse",
          "insert failed after many insert/remove cycles");
    /* a key inserted behind tombstones is still found */
    hprof_req_insert(0x777777, &in);
    check(hprof_req_lookup(0x777777, &out), "lookup past tombstones", "not found");

    /* full: fill every slot, the next insert fails without crashing */
    hprof_req_reset();
    long n = 0;
    for (uintptr_t k = 1; k <= 2 * HPROF_REQ_CAPACITY; k++)
        if (hprof_req_insert(k, &in) == 0)
            n++;
    check(n > HPROF_REQ_CAPACITY / 2 && n <= HPROF_REQ_CAPACITY && hprof_req_untracked() > 0, "full table",
          "no insert failed or too few succeeded");
    int found = 1;
    for (uintptr_t k = 1; k <= 2 * HPROF_REQ_CAPACITY; k++) {
        int f = hprof_req_lookup(k, &out);
        if (f && !hprof_req_remove(k))
            found = 0;
    }
    check(found && hprof_req_live() == 0, "full table drain", "could not remove all entries");
    check(hprof_req_insert(0x4242, &in) == 0 && hprof_req_lookup(0x4242, &out), "insert after drain",
          "insert failed after the table was drained");

    /* concurrent inserts and removes from threads */
    hprof_req_reset();
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++)
        pthread_create(&th[t], NULL, inserter, (void *)(uintptr_t)(t * 8 + 1));
    int thr_ok = 1;
    for (int t = 0; t < NTHREADS; t++) {
        void *r;
        pthread_join(th[t], &r);
        if (r)
            thr_ok = 0;
    }
    int all = 1;
    for (int t = 0; t < NTHREADS; t++) {
        uintptr_t base = (uintptr_t)(t * 8 + 1);
        for (uintptr_t i = 0; i < PER_THREAD; i++) {
            int f = hprof_req_lookup(0x10000 + base + i * 64, &out);
            if (f != (int)(i & 1) || (f && out.sent != base + i))
                all = 0;
        }
    }
    check(thr_ok && all && hprof_req_live() == NTHREADS * PER_THREAD / 2, "concurrent inserts",
          "lost or wrong entries after concurrent inserts/removes");
    return failures ? 1 : 0;
}
