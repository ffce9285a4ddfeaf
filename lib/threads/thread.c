#define _GNU_SOURCE
/*
 * thread.c - creation and registry of per-thread state, the scratch buffer,
 * and what becomes of a thread's data when it ends (see thread.h).
 */
#include "lib/threads/thread.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/config.h"
#include "report/profile/snapshot.h"
#include "core/log.h"
#include "unwind/unwind.h"

/* Ended threads that keep a location of their own, per process; the rest
 * are merged by start routine. */
#define ENDED_KEPT 64

__thread hprof_thread *hprof_self __attribute__((tls_model("initial-exec")));
__thread int hprof_poll_time_next __attribute__((tls_model("initial-exec")));

static hprof_thread *thread_list;
static int thread_count;           /* records made: their order; from the freeze on, the locations */
static hprof_thread *free_records; /* of merged threads, for the next new thread */
static int ended_kept;
static int frozen;
static uint64_t unmet_visits;

/* The registry lock: a spin lock that knows its owner, so that a fatal
 * signal handler (hprof_thread_freeze(0)) neither waits for its own
 * thread nor for long. Thread start and end take it, and dlclose
 * (hprof_thread_forget_code). */
static int lock_owner;

static int lock_registry(int may_wait)
{
    int me = (int)syscall(SYS_gettid);
    for (int tries = 0;; tries++) {
        int owner = 0;
        if (__atomic_compare_exchange_n(&lock_owner, &owner, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return 1;
        if (!may_wait && (owner == me || tries >= 200))
            return 0;
        if (may_wait) {
            sched_yield();
        } else {
            struct timespec half_ms = { 0, 500000 };
            nanosleep(&half_ms, NULL);
        }
    }
}

static void unlock_registry(void)
{
    __atomic_store_n(&lock_owner, 0, __ATOMIC_RELEASE);
}

/* A new record: page-aligned (the record's first line holds the lean
 * poll path's fields, thread.h) and zero without its pages touched, as
 * calloc's are (most of it, the sampler's CPU table, stays untouched: an
 * aligned_alloc and memset made it all resident, 265 KB a thread). */
static hprof_thread *map_record(void)
{
    void *p = mmap(NULL, sizeof(hprof_thread), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* A record for a new location, linked at the head of the list; the
 * caller holds the lock. */
static hprof_thread *new_record(void)
{
    hprof_thread *t = free_records;
    if (t) {
        free_records = t->next;
        memset(t, 0, sizeof *t);
    } else if (!(t = map_record())) {
        return NULL;
    }
    if (cct_init(&t->tree, 64, hprof_config.max_nodes) != 0) {
        munmap(t, sizeof *t);
        return NULL;
    }
    if (timeline_init(&t->timeline, (uint32_t)hprof_config.time_buckets) != 0)
        hprof_verbose(1, "no memory for a thread's timeline: it has none");
    if (t->timeline.bucket && hprof_config.time_paths > 0 &&
        path_log_init(&t->paths, t->timeline.nbuckets) != 0)
        hprof_verbose(1, "no memory for a thread's call paths over time: it has none");
    t->index = thread_count++;
    t->next = thread_list;
    __atomic_store_n(&thread_list, t, __ATOMIC_RELEASE);
    return t;
}

hprof_thread *hprof_thread_get(void)
{
    hprof_thread *t = hprof_self;
    if (t)
        return t;
    lock_registry(1);
    t = new_record();
    unlock_registry();
    hprof_self = t;
    return t;
}

void hprof_thread_unmet_visit(void)
{
    __atomic_fetch_add(&unmet_visits, 1, __ATOMIC_RELAXED);
}

uint64_t hprof_thread_unmet_visits(void)
{
    return __atomic_load_n(&unmet_visits, __ATOMIC_RELAXED);
}

hprof_thread *hprof_thread_list(void)
{
    return __atomic_load_n(&thread_list, __ATOMIC_ACQUIRE);
}

int hprof_thread_count(void)
{
    return __atomic_load_n(&thread_count, __ATOMIC_RELAXED);
}

/* The trampoline's name is here, not in thread_start.c, so that a static
 * link pulls that file (and its pthread_create) in only where the program
 * creates threads. */
const char hprof_thread_trampoline[] = "hprof_thread_start";

int hprof_thread_snapshot(snapshot_thread *out, int max)
{
    int n = 0;
    for (const hprof_thread *t = hprof_thread_list(); t; t = t->next, n++)
        if (n < max)
            out[n] =
                (snapshot_thread){ &t->tree, &t->paths, t->index, t->start_routine, t->ended_threads, NULL };
    return n;
}

void *hprof_thread_scratch(size_t bytes)
{
    hprof_thread *t = hprof_self;
    if (!t)
        return NULL;
    if (bytes <= t->scratch_size)
        return t->scratch;
    size_t size = 4096;
    while (size < bytes)
        size *= 2;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    if (t->scratch)
        munmap(t->scratch, t->scratch_size);
    t->scratch = p;
    t->scratch_size = size;
    return p;
}

/* ---- ended threads ----------------------------------------------------------- */

/* The location that ended threads of routine are merged into, made on
 * first use (the caller holds the lock). */
static hprof_thread *merged_location(uint64_t routine)
{
    for (hprof_thread *g = thread_list; g; g = g->next)
        if (g->ended_threads && g->start_routine == routine)
            return g;
    hprof_thread *g = new_record();
    if (g) {
        g->start_routine = routine;
        g->sampling.ended = 1; /* never sampled itself */
    }
    return g;
}

/* The sample statistics of t go to g, so the run's totals stay the same;
 * g's window is the sum of the merged windows. */
static void add_sampling(hprof_sampling *g, const hprof_sampling *t)
{
    g->window.end_ns += t->window.end_ns - t->window.start_ns;
    g->counted += t->counted;
    g->in_mpi += t->in_mpi;
    g->busy += t->busy;
    g->failed += t->failed;
    g->full += t->full;
    g->handler_ns += t->handler_ns;
    if (t->handler_max_ns > g->handler_max_ns)
        g->handler_max_ns = t->handler_max_ns;
    for (int i = 0; i <= SAMPLER_HANDLER_BUCKETS; i++)
        g->handler_hist[i] += t->handler_hist[i];
    for (int i = 0; i <= SAMPLER_HIST_BUCKETS; i++)
        g->hist[i] += t->hist[i];
}

static void unlink_record(hprof_thread *t)
{
    for (hprof_thread **p = &thread_list; *p; p = &(*p)->next) {
        if (*p == t) {
            __atomic_store_n(p, t->next, __ATOMIC_RELEASE);
            return;
        }
    }
}

void hprof_thread_end(hprof_thread *t)
{
    if (hprof_self == t) {
        hprof_self = NULL; /* the sampling handler leaves this thread alone from here */
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        unwind_thread_end();
    }
    if (t->scratch) {
        munmap(t->scratch, t->scratch_size);
        t->scratch = NULL;
        t->scratch_size = 0;
    }
    lock_registry(1);
    if (frozen) {
        unlock_registry(); /* finalize reads the list: it keeps its shape */
        return;
    }
    hprof_thread *g = NULL;
    if (ended_kept >= ENDED_KEPT)
        g = merged_location(t->start_routine);
    uint32_t *map = NULL;
    if (!g || cct_merge(&g->tree, &t->tree, &map) != 0) {
        ended_kept++;
        cct_compact(&t->tree); /* its own location, at the size of its data */
        unlock_registry();
        return;
    }
    g->ended_threads++;
    add_sampling(&g->sampling, &t->sampling);
    g->exact_failed += t->exact_failed;
    timeline_fold_to(&g->timeline, t->timeline.shift);
    timeline_fold_to(&t->timeline, g->timeline.shift);
    timeline_add_into(&g->timeline, &t->timeline);
    path_log_add_into(&g->paths, &t->paths, map);
    free(map);
    unlink_record(t);
    cct_free(&t->tree);
    timeline_free(&t->timeline);
    path_log_free(&t->paths);
    t->next = free_records;
    free_records = t;
    unlock_registry();
}

void hprof_thread_freeze(int may_wait)
{
    int locked = lock_registry(may_wait);
    __atomic_store_n(&frozen, 1, __ATOMIC_RELEASE);
    /* Dense indexes, in the order the records were made (the list is
     * newest first). */
    int n = 0;
    for (hprof_thread *t = thread_list; t; t = t->next)
        n++;
    int i = n;
    for (hprof_thread *t = thread_list; t; t = t->next)
        t->index = --i;
    __atomic_store_n(&thread_count, n, __ATOMIC_RELAXED);
    if (locked)
        unlock_registry();
}

/* ---- unloaded code ----------------------------------------------------------- */

static void rekey(cct *tree, int id, uint64_t low, uint64_t high)
{
    uint32_t n = __atomic_load_n(&tree->nnodes, __ATOMIC_ACQUIRE);
    for (uint32_t i = 1; i < n; i++) {
        uint64_t k = tree->nodes[i].key;
        /* a return address, or a sample's pc + 1: the code is at k - 1 */
        if (k != 0 && k < (1ull << 48) && k - 1 >= low && k - 1 < high)
            __atomic_store_n(&tree->nodes[i].key, CCT_KEY_UNLOADED(id, k), __ATOMIC_RELAXED);
    }
}

void hprof_thread_each_tree(void (*fn)(const cct *tree, void *ctx), void *ctx)
{
    lock_registry(1);
    for (hprof_thread *t = thread_list; t; t = t->next)
        fn(&t->tree, ctx);
    unlock_registry();
}

int hprof_thread_start_routines(uint64_t *out, int max)
{
    int n = 0;
    lock_registry(1);
    for (hprof_thread *t = thread_list; t; t = t->next) {
        if (!t->start_routine)
            continue;
        if (n < max)
            out[n] = t->start_routine;
        n++;
    }
    unlock_registry();
    return n;
}

void hprof_thread_forget_code(int id, uint64_t low, uint64_t high)
{
    if (id > CCT_KEY_UNLOADED_MAX)
        return; /* left as addresses: named after what is mapped there at the end */
    lock_registry(1);
    for (hprof_thread *t = thread_list; t; t = t->next)
        rekey(&t->tree, id, low, high);
    unlock_registry();
}
