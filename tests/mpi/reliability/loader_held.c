/*
 * loader_held.c - a rank exits without MPI_Finalize while one of its
 * threads sits inside dl_iterate_phdr, the loader's lock held
 * (tests/mpi/reliability_loader_held.sh). The partial profile's writer is
 * a forked child, where that lock stays held for good: the writer must not
 * need it.
 */
#define _GNU_SOURCE
#include <link.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int go[2];
static volatile int holding;

static int hold_the_lock(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info, (void)size, (void)data;
    holding = 1;
    char c;
    while (read(go[0], &c, 1) != 1) /* never written: the rank exits first */
        ;
    return 1;
}

static void *holder(void *arg)
{
    (void)arg;
    char c;
    if (read(go[0], &c, 1) == 1) /* the first byte: take the lock now */
        dl_iterate_phdr(hold_the_lock, NULL);
    return NULL;
}

__attribute__((noinline)) static void work(void)
{
    double x = 1, y;
    for (int i = 0; i < 40; i++)
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    pthread_t t;
    if (pipe(go) != 0 || pthread_create(&t, NULL, holder, NULL) != 0)
        return 2;
    work();
    if (write(go[1], "g", 1) != 1)
        return 2;
    while (!holding)
        usleep(1000);
    printf("exiting with the loader's lock held\n");
    fflush(stdout);
    exit(0); /* no MPI_Finalize */
}
