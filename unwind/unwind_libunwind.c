#define _GNU_SOURCE
/*
 * unwind_libunwind.c - call-path capture with libunwind's fast trace
 * (unw_backtrace), which caches a step recipe per return address inside
 * libunwind and costs ~140 ns at depth 14 here, against ~7.5 us for stepping
 * a cursor (see shared/design.md).
 */
#if !defined(__x86_64__) /* x86_64: unwind_x86_64.c */
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <ucontext.h>

#include "own_code.h"
#include "unwind.h"

/* How many frames can lie between the capture and the interrupted or
 * calling code: hprof's own, the signal trampoline. */
#define OWN_FRAMES_MAX 16

int unwind_mpi_path(uint64_t *ips, int max)
{
    void *buf[UNWIND_MAX_FRAMES];
    int limit = max + OWN_FRAMES_MAX < UNWIND_MAX_FRAMES ? max + OWN_FRAMES_MAX : UNWIND_MAX_FRAMES;
    int n = unw_backtrace(buf, limit);
    if (n <= 0 || n >= limit)
        return 0;
    int start = 0;
    while (start < n && start < OWN_FRAMES_MAX && own_code((uint64_t)(uintptr_t)buf[start]))
        start++;
    if (start == 0 || start >= n || start >= OWN_FRAMES_MAX)
        return 0;
    int count = 0;
    for (int i = start; i < n; i++)
        ips[count++] = (uint64_t)(uintptr_t)buf[i];
    return count;
}

void unwind_thread_init(void)
{
    void *buf[4];
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    unw_backtrace(buf, 4);
}

/* Slow path: step a cursor from the signal context itself. */
static int step_from_context(uint64_t *ips, int max, const void *ucontext)
{
    unw_cursor_t cursor;
    if (unw_init_local2(&cursor, (unw_context_t *)ucontext, UNW_INIT_SIGNAL_FRAME) != 0)
        return 0;
    int n = 0;
    do {
        unw_word_t ip;
        if (unw_get_reg(&cursor, UNW_REG_IP, &ip) != 0 || ip == 0)
            break;
        if (n == max)
            return 0;
        ips[n++] = ip;
    } while (unw_step(&cursor) > 0);
    return n;
}

int unwind_signal_path(uint64_t *ips, int max, const void *ucontext)
{
    const ucontext_t *uc = ucontext;
    void *pc = (void *)uc->uc_mcontext.gregs[REG_RIP];
    void *buf[UNWIND_MAX_FRAMES];
    int limit = max + OWN_FRAMES_MAX < UNWIND_MAX_FRAMES ? max + OWN_FRAMES_MAX : UNWIND_MAX_FRAMES;
    /* The fast trace walks through the signal frame into the interrupted
     * one; the frames before the interrupted pc are the handler's own. */
    int n = unw_backtrace(buf, limit);
    for (int i = 0; i < n && i < OWN_FRAMES_MAX; i++) {
        if (buf[i] != pc)
            continue;
        if (n >= limit)
            return 0;
        int count = 0;
        for (int k = i; k < n; k++)
            ips[count++] = (uint64_t)(uintptr_t)buf[k];
        return count;
    }
    return step_from_context(ips, max, ucontext);
}

static uint32_t failed_node(cct *tree)
{
    return cct_child(tree, CCT_ROOT, CCT_KEY_UNWIND_FAILED);
}

uint32_t unwind_mpi_node(cct *tree, int *failed)
{
    uint64_t keys[UNWIND_MAX_FRAMES];
    int n = unwind_mpi_path(keys, UNWIND_MAX_FRAMES);
    *failed = n <= 0;
    if (cct_reserve(tree, n > 0 ? (uint32_t)n + 1 : 2) != 0)
        return CCT_NONE;
    return n > 0 ? cct_path(tree, keys, n) : failed_node(tree);
}

uint32_t unwind_signal_node(cct *tree, const void *ucontext, int *failed, int *inside)
{
    uint64_t keys[UNWIND_MAX_FRAMES];
    int n = unwind_signal_path(keys, UNWIND_MAX_FRAMES, ucontext);
    *failed = n <= 0;
    *inside = 0;
    for (int i = 0; i < n; i++) {
        if (own_code(keys[i])) {
            *inside = 1;
            return CCT_NONE;
        }
    }
    if (*failed)
        return failed_node(tree);
    keys[0] += 1;
    return cct_path(tree, keys, n);
}

void unwind_restore_thunks(void)
{
}
#endif
