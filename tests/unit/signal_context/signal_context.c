/*
 * signal_context.c - core/signal_context.c's rule (tests/unit/signal_context.sh):
 * a thread that began its measurement with a signal blocked (a launcher's
 * mask, inherited) is not taken for a handler; one that blocks more is;
 * a real handler is; a usual signal the program unblocks is usual no longer.
 * Prints one line per case: "<case> ok" or "<case> fail: why".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

#include "core/signal_context.h"

static void set_blocked(int how, int sig)
{
    sigset_t s;
    sigemptyset(&s);
    if (sig)
        sigaddset(&s, sig);
    pthread_sigmask(how, &s, NULL);
}

static void expect(const char *name, int got, int want)
{
    if (got == want)
        printf("%s ok\n", name);
    else
        printf("%s fail: signal_context_maybe %d, want %d\n", name, got, want);
}

static volatile int in_handler = -1;

static void handler(int sig)
{
    (void)sig;
    in_handler = signal_context_maybe(0);
}

/* A thread whose measurement began elsewhere: any blocked signal counts. */
static void *unbegun(void *arg)
{
    (void)arg;
    set_blocked(SIG_SETMASK, SIGWINCH);
    expect("unbegun_blocked", signal_context_maybe(0), 1);
    set_blocked(SIG_SETMASK, 0);
    expect("unbegun_clear", signal_context_maybe(0), 0);
    return NULL;
}

int main(void)
{
    set_blocked(SIG_SETMASK, SIGWINCH); /* as perf or hydra's parent leaves it */
    signal_context_thread_begins();
    expect("inherited", signal_context_maybe(0), 0);
    set_blocked(SIG_BLOCK, SIGUSR1);
    expect("more_blocked", signal_context_maybe(0), 1);
    set_blocked(SIG_UNBLOCK, SIGUSR1);
    expect("back_to_usual", signal_context_maybe(0), 0);

    struct sigaction sa = { 0 };
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR2, &sa, NULL);
    raise(SIGUSR2);
    expect("handler", in_handler, 1);

    /* unblocked once, SIGWINCH is no longer usual: its handler is seen */
    set_blocked(SIG_SETMASK, 0);
    expect("unblocked", signal_context_maybe(0), 0);
    set_blocked(SIG_BLOCK, SIGWINCH);
    expect("usual_no_longer", signal_context_maybe(0), 1);
    sigaction(SIGWINCH, &sa, NULL);
    in_handler = -1;
    set_blocked(SIG_SETMASK, 0);
    raise(SIGWINCH);
    expect("handler_of_former_usual", in_handler, 1);

    pthread_t t;
    if (pthread_create(&t, NULL, unbegun, NULL) == 0)
        pthread_join(t, NULL);
    else
        printf("unbegun fail: pthread_create\n");
    return 0;
}
