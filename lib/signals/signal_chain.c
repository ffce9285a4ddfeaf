#define _GNU_SOURCE
#include "lib/signals/signal_chain.h"
#include "lib/signals/signal_route.h"

#include <errno.h>
#include <string.h>

/* hprof's signals: the one it samples on and, once the program takes that
 * one, the one it moved to (0: a free slot). */
#define CHAIN_MAX 2
static int owned[CHAIN_MAX];
static struct sigaction program_action[CHAIN_MAX]; /* what the program asked for */
static void (*program_handles)(int sig);

static int slot_of(int sig)
{
    for (int i = 0; sig != 0 && i < CHAIN_MAX; i++)
        if (__atomic_load_n(&owned[i], __ATOMIC_ACQUIRE) == sig)
            return i;
    return -1;
}

void signal_chain_take(int sig, const struct sigaction *action)
{
    int i = slot_of(sig);
    for (int k = 0; i < 0 && k < CHAIN_MAX; k++)
        if (__atomic_load_n(&owned[k], __ATOMIC_ACQUIRE) == 0)
            i = k;
    if (i < 0)
        return;
    program_action[i] = *action;
    __atomic_store_n(&owned[i], sig, __ATOMIC_RELEASE);
}

void signal_chain_on_program_handler(void (*moved)(int sig))
{
    program_handles = moved;
}

void signal_chain_release(void)
{
    for (int i = 0; i < CHAIN_MAX; i++)
        __atomic_store_n(&owned[i], 0, __ATOMIC_RELEASE);
}

void signal_chain_forward(int sig, siginfo_t *info, void *ucontext)
{
    int i = slot_of(sig);
    if (i < 0)
        return;
    struct sigaction a = program_action[i];
    if (a.sa_handler == SIG_IGN)
        return;
    if (a.sa_handler == SIG_DFL && !(a.sa_flags & SA_SIGINFO)) {
        /* What would have happened without hprof (for SIGPROF: the end). */
        real_sigaction(sig, &a, NULL);
        raise(sig);
        return;
    }
    if (a.sa_flags & SA_SIGINFO)
        a.sa_sigaction(sig, info, ucontext);
    else
        a.sa_handler(sig);
}

static int is_handler(const struct sigaction *a)
{
    return (a->sa_flags & SA_SIGINFO) ? a->sa_sigaction != NULL
                                      : a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN;
}

int signal_chain_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    int i = slot_of(sig);
    if (i < 0)
        return signal_route_sigaction(sig, act, old);
    if (old)
        *old = program_action[i];
    if (act) {
        program_action[i] = *act;
        if (is_handler(act) && program_handles)
            program_handles(sig);
    }
    return 0;
}
