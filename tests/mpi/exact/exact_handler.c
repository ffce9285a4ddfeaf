/*
 * exact_handler.c - a signal handler measured exactly whose first entry on
 * a thread is that thread's first call hprof sees (tests/mpi/exact_handler.sh,
 * issue 39.2). The churning thread starts before MPI_Init and never calls
 * MPI, so hprof has no record of it; it allocates and frees blocks too
 * large for the per-thread cache, so the signal mostly lands while it
 * holds the allocator's arena lock. main sends it SIGUSR1 SIGNALS times,
 * waiting for each handler to run, then runs the handler itself on its own
 * thread (one hprof knows) SELF_CALLS times. Argument "nodefer": the
 * handler is installed with SA_NODEFER (no signal blocked while it runs).
 * Each rank writes its counts to exact.expect.RANK ("visits PATH N",
 * "handled N").
 * Argument "main": the churn runs on main, a thread hprof knows, after
 * MPI_Init, and a thread started then signals main SIGNALS times: the
 * handler's entries walk from frames in the allocator, whose lock the
 * interrupted churn may hold. Writes "handled main N" only.
 */
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SIGNALS 200
#define SELF_CALLS 50

static volatile sig_atomic_t handled;
static volatile int stop;
static long self_calls;

__attribute__((noinline)) void on_usr1(int sig)
{
    (void)sig;
    handled++;
}

static unsigned next_random(unsigned *s)
{
    return *s = *s * 1103515245u + 12345u;
}

static void *churn(void *arg)
{
    (void)arg;
    unsigned s = 1;
    void *keep[64] = { 0 };
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        int k = (int)(next_random(&s) >> 26); /* 0..63 */
        free(keep[k]);
        keep[k] = malloc(2000 + (next_random(&s) >> 16) % 60000);
    }
    for (int k = 0; k < 64; k++)
        free(keep[k]);
    return NULL;
}

/* Sends the signal and waits until the handler ran (60 s at most). */
static int signal_and_wait(pthread_t t)
{
    sig_atomic_t before = handled;
    pthread_kill(t, SIGUSR1);
    for (int i = 0; i < 600000 && handled == before; i++)
        usleep(100);
    return handled != before;
}

static pthread_t main_thread;

static void *signal_main(void *arg)
{
    (void)arg;
    int sent = 0;
    while (sent < SIGNALS && signal_and_wait(main_thread))
        sent++;
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    return NULL;
}

static void install_handler(int flags)
{
    struct sigaction sa = { 0 };
    sa.sa_handler = on_usr1;
    sa.sa_flags = flags;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
}

/* The rank's counts, for the test script to compare with the profile. */
static void write_expect(const char *counts)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char name[64];
    snprintf(name, sizeof name, "exact.expect.%d", rank);
    FILE *f = fopen(name, "w");
    if (f) {
        fputs(counts, f);
        fclose(f);
    }
}

/* Mode "main": main churns while signal_main signals it. */
static void churn_on_main(void)
{
    main_thread = pthread_self();
    pthread_t t;
    pthread_create(&t, NULL, signal_main, NULL);
    churn(NULL);
    pthread_join(t, NULL);
    char counts[64];
    snprintf(counts, sizeof counts, "handled main %d\n", (int)handled);
    write_expect(counts);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "blocked";
    if (strcmp(mode, "main") == 0) {
        install_handler(0);
        MPI_Init(&argc, &argv);
        churn_on_main();
        MPI_Finalize();
        return 0;
    }
    install_handler(strcmp(mode, "nodefer") == 0 ? SA_NODEFER : 0);
    pthread_t t;
    pthread_create(&t, NULL, churn, NULL); /* before MPI_Init: hprof has no record of it */
    MPI_Init(&argc, &argv);
    int sent = 0;
    while (sent < SIGNALS && signal_and_wait(t))
        sent++;
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    pthread_join(t, NULL);
    for (int i = 0; i < SELF_CALLS; i++, self_calls++)
        on_usr1(0);
    char counts[128];
    snprintf(counts, sizeof counts, "visits main;on_usr1 %ld\nhandled churn %d\n", self_calls,
             (int)handled - SELF_CALLS);
    write_expect(counts);
    MPI_Finalize();
    return 0;
}
