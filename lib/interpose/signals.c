/*
 * signals.c - the program's sigaction() and signal(): it keeps its signals
 * while hprof samples on one (lib/signals/signal_chain.h).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>

#include "lib/signals/signal_chain.h"

__attribute__((visibility("default"))) int sigaction(int sig, const struct sigaction *act,
                                                     struct sigaction *old)
{
    return signal_chain_sigaction(sig, act, old);
}

/* glibc's signal() does not go through sigaction's PLT entry. */
__attribute__((visibility("default"))) sighandler_t signal(int sig, sighandler_t handler)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(sig, &sa, &old) != 0)
        return SIG_ERR;
    return old.sa_handler;
}
