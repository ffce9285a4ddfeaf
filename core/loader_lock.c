#define _GNU_SOURCE
/*
 * loader_lock.c - see loader_lock.h.
 */
#include "core/loader_lock.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/real_dl.h"

enum {
    MAX_CANDIDATES = 8
};

/* The owner word of the lock found; NULL: none found (yet). */
static int *owner_word;

typedef struct search {
    unsigned char *base;
    size_t size;
    int tid;
    size_t found[MAX_CANDIDATES];
    int nfound;
} search;

/* The offsets in [base, base + size) of the mutexes that thread tid owns. */
static void mutexes_owned(search *s)
{
    s->nfound = 0;
    for (size_t off = 0; off + sizeof(pthread_mutex_t) <= s->size; off += _Alignof(pthread_mutex_t)) {
        const pthread_mutex_t *m = (const pthread_mutex_t *)(void *)(s->base + off);
        if (m->__data.__owner == s->tid && m->__data.__lock != 0 && s->nfound < MAX_CANDIDATES)
            s->found[s->nfound++] = off;
    }
}

/* Inside dl_iterate_phdr, this thread holds the lock: the first object
 * is enough. */
static int look_inside(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info;
    (void)size;
    mutexes_owned(data);
    return 1;
}

void hprof_loader_lock_find(void)
{
    static int done;
    if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
        return;
    void *rtld = dlvsym(RTLD_DEFAULT, "_rtld_global", "GLIBC_PRIVATE");
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    if (!rtld || !dladdr1(rtld, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym)
        return;
    search inside = { rtld, sym->st_size, (int)syscall(SYS_gettid), { 0 }, 0 };
    if (hprof_loader_iterate(look_inside, &inside) < 0 || inside.nfound == 0)
        return;
    search outside = inside;
    mutexes_owned(&outside); /* one that this thread holds anyway is not it */
    int *only = NULL, n = 0;
    for (int i = 0; i < inside.nfound; i++) {
        int also = 0;
        for (int k = 0; k < outside.nfound; k++)
            also |= outside.found[k] == inside.found[i];
        if (!also) {
            pthread_mutex_t *m = (pthread_mutex_t *)(void *)(inside.base + inside.found[i]);
            only = &m->__data.__owner;
            n++;
        }
    }
    if (n == 1)
        __atomic_store_n(&owner_word, only, __ATOMIC_RELEASE);
}

int hprof_loader_lock_mine(void)
{
    int *w = __atomic_load_n(&owner_word, __ATOMIC_ACQUIRE);
    return w && __atomic_load_n(w, __ATOMIC_RELAXED) == (int)syscall(SYS_gettid);
}
