/*
 * loader_lock.c - hprof_loader_lock_mine reads the loader's list lock as
 * glibc holds it (tests/unit/loader_lock.sh): not this thread's at rest,
 * this thread's inside a dl_iterate_phdr callback; while another thread
 * is inside one, that thread's and not this one's; not this thread's
 * after. Prints one line per case: "<case> ok" or "<case> fail: why".
 */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

#include "core/loader_lock.h"
#include "core/real_dl.h"

static int mine_inside = -1, other_inside = -1;
static sem_t entered, may_leave;

static int note_inside(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info, (void)size, (void)data;
    mine_inside = hprof_loader_lock_mine();
    return 1;
}

static int wait_inside(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info, (void)size, (void)data;
    other_inside = hprof_loader_lock_mine();
    sem_post(&entered);
    sem_wait(&may_leave);
    return 1;
}

static void *hold_the_lock(void *unused)
{
    (void)unused;
    dl_iterate_phdr(wait_inside, NULL);
    return NULL;
}

static void result(const char *name, int got, int want)
{
    if (got == want)
        printf("%s ok\n", name);
    else
        printf("%s fail: mine reads %d, want %d\n", name, got, want);
}

int main(void)
{
    hprof_loader_lock_find();
    result("free", hprof_loader_lock_mine(), 0);
    dl_iterate_phdr(note_inside, NULL);
    result("own", mine_inside, 1);
    sem_init(&entered, 0, 0);
    sem_init(&may_leave, 0, 0);
    pthread_t t;
    if (pthread_create(&t, NULL, hold_the_lock, NULL) != 0) {
        printf("other fail: no thread\n");
        return 1;
    }
    sem_wait(&entered);
    result("other", other_inside, 1);
    result("not_mine", hprof_loader_lock_mine(), 0);
    sem_post(&may_leave);
    pthread_join(t, NULL);
    result("after", hprof_loader_lock_mine(), 0);
    return 0;
}
