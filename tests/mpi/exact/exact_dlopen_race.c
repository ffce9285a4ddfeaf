/*
 * exact_dlopen_race.c - a library opened, called and closed again and
 * again while another thread of the program calls dlsym without pause
 * (tests/mpi/exact_dlopen_race.sh). The other thread's dlsym is often the
 * first to find the library the loader just added, so that thread runs
 * hprof's patching of it; the main thread's own dlsym must still not
 * return before the library is patched, nor its dlclose unmap it while it
 * is patched. exact.expect.RANK (check_exact.py) gets every call the
 * library counted, over all its loads.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum {
    LOADS = 40
};

static int stop;

static void *look_up_again_and_again(void *unused)
{
    (void)unused;
    long found = 0;
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
        found += dlsym(RTLD_DEFAULT, "no_such_symbol_anywhere") != NULL;
    return (void *)found;
}

/* One load: the library's calls of plug_solve and plug_step added to
 * calls[0] and calls[1]; 0, or -1 when it could not be loaded. */
static int load_call_close(int rank, long calls[2], double *sum)
{
    void *h = dlopen("./libexactplug.so", RTLD_NOW);
    if (!h) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return -1;
    }
    double (*solve)(int) = (double (*)(int))dlsym(h, "plug_solve");
    long *counted = (long *)dlsym(h, "plug_calls");
    if (!solve || !counted)
        return -1;
    *sum += solve(3 + rank);
    *sum += solve(2);
    calls[0] += counted[0];
    calls[1] += counted[1];
    dlclose(h);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    pthread_t other;
    if (pthread_create(&other, NULL, look_up_again_and_again, NULL) != 0)
        return 1;
    long calls[2] = { 0, 0 };
    double sum = 0;
    int failed = 0;
    for (int k = 0; k < LOADS && !failed; k++)
        failed = load_call_close(rank, calls, &sum) != 0;
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    pthread_join(other, NULL);
    if (failed)
        return 1;
    MPI_Barrier(MPI_COMM_WORLD);
    char name[64];
    snprintf(name, sizeof name, "exact.expect.%d", rank);
    FILE *f = fopen(name, "w");
    if (!f)
        return 1;
    fprintf(f, "visits plug_solve %ld\nvisits plug_step %ld\n", calls[0], calls[1]);
    fclose(f);
    if (sum < 0)
        printf("%g\n", sum);
    MPI_Finalize();
    return 0;
}
