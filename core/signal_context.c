#define _GNU_SOURCE
/*
 * signal_context.c - see signal_context.h.
 */
#include "core/signal_context.h"

#include <pthread.h>
#include <signal.h>

/* What a handler returns to on x86-64 Linux (glibc's and musl's
 * __restore_rt): mov $15, %rax; syscall (rt_sigreturn). */
static const unsigned char sigreturn_code[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };

static int is_sigreturn(uint64_t address)
{
#if defined(__x86_64__)
    const unsigned char *code = (const unsigned char *)(uintptr_t)address;
    if (!address)
        return 0;
    /* byte by byte: code that ends short of the pattern is not read past */
    for (unsigned i = 0; i < sizeof sigreturn_code; i++)
        if (code[i] != sigreturn_code[i])
            return 0;
    return 1;
#else
    (void)address;
    (void)sigreturn_code;
    return 0;
#endif
}

int signal_context_maybe(uint64_t return_address)
{
    sigset_t blocked;
    if (pthread_sigmask(SIG_BLOCK, NULL, &blocked) != 0 || !sigisemptyset(&blocked))
        return 1;
    return is_sigreturn(return_address);
}
