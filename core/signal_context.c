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

/* The thread's usual blocked signals, bit s - 1 for signal s (the kernel's
 * 64). A signal blocked at the measurement's start can only reach a
 * handler after the program unblocked it; maybe() drops it then. */
static __thread uint64_t usual_blocked __attribute__((tls_model("initial-exec")));

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

/* The thread's blocked signals as bits; all of them when unknown. */
static uint64_t blocked_now(void)
{
    sigset_t set;
    if (pthread_sigmask(SIG_BLOCK, NULL, &set) != 0)
        return ~0ull;
    uint64_t bits = 0;
    for (int s = 1; s <= 64; s++)
        if (sigismember(&set, s) == 1)
            bits |= 1ull << (s - 1);
    return bits;
}

void signal_context_thread_begins(void)
{
    uint64_t now = blocked_now();
    usual_blocked = now == ~0ull ? 0 : now;
}

int signal_context_maybe(uint64_t return_address)
{
    uint64_t now = blocked_now();
    usual_blocked &= now;
    if (now & ~usual_blocked)
        return 1;
    return is_sigreturn(return_address);
}
