#define _GNU_SOURCE
#include "signal_chain.h"
#include "signal_route.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);

static int owned_signal;                 /* 0: none */
static struct sigaction program_action;  /* what the program asked for */

int real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    static sigaction_fn real;
    if (!real)
        real = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    return real(sig, act, old);
}

void signal_chain_take(int sig, const struct sigaction *action)
{
    program_action = *action;
    __atomic_store_n(&owned_signal, sig, __ATOMIC_RELEASE);
}

void signal_chain_release(void)
{
    __atomic_store_n(&owned_signal, 0, __ATOMIC_RELEASE);
}

void signal_chain_forward(int sig, siginfo_t *info, void *ucontext)
{
    struct sigaction a = program_action;
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

__attribute__((visibility("default"))) int sigaction(int sig, const struct sigaction *act,
                                                     struct sigaction *old)
{
    if (sig != 0 && sig == __atomic_load_n(&owned_signal, __ATOMIC_ACQUIRE)) {
        if (old)
            *old = program_action;
        if (act)
            program_action = *act;
        return 0;
    }
    return signal_route_sigaction(sig, act, old);
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
