/*
 * thread.c - creation and registry of per-thread state, and the scratch buffer.
 */
#include "thread.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "measure.h"
#include "runtime.h"

__thread hprof_thread *hprof_self __attribute__((tls_model("initial-exec")));

static hprof_thread *thread_list;
static int thread_count;

hprof_thread *hprof_thread_get(void)
{
    hprof_thread *t = hprof_self;
    if (t)
        return t;
    t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    if (cct_init(&t->tree, 64, hprof_config.max_nodes) != 0) {
        free(t);
        return NULL;
    }
    t->index = __atomic_fetch_add(&thread_count, 1, __ATOMIC_RELAXED);
    hprof_thread *head = __atomic_load_n(&thread_list, __ATOMIC_ACQUIRE);
    do {
        t->next = head;
    } while (!__atomic_compare_exchange_n(&thread_list, &head, t, 1, __ATOMIC_RELEASE,
                                          __ATOMIC_ACQUIRE));
    hprof_self = t;
    return t;
}

hprof_thread *hprof_thread_enter(void)
{
    hprof_thread *t = hprof_self;
    if (t)
        return t;
    t = hprof_thread_get();
    if (t && hprof_active)
        sampler_thread_start(t, hprof_now_ns());
    return t;
}

hprof_thread *hprof_thread_list(void)
{
    return __atomic_load_n(&thread_list, __ATOMIC_ACQUIRE);
}

int hprof_thread_count(void)
{
    return __atomic_load_n(&thread_count, __ATOMIC_RELAXED);
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

void hprof_thread_close(hprof_thread *t, uint64_t now_ns)
{
    uint32_t node = CCT_NONE;
    /* start address + 1 maps to the routine like a return address inside it */
    if (t->sampling.last_node == CCT_NONE && t->start_routine && cct_reserve(&t->tree, 1) == 0)
        node = cct_child(&t->tree, CCT_ROOT, t->start_routine + 1);
    sampler_thread_stop(t, now_ns, node);
}
