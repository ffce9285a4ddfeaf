#define _GNU_SOURCE
/*
 * libunwind_walk.c - see libunwind_walk.h.
 */
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <string.h>
#include <ucontext.h>

#include "unwind/libunwind_walk.h"
#include "core/loader_lock.h"
#include "core/own_code.h"
#include "unwind/unwind.h"

#if defined(__x86_64__)
/* unw_backtrace and unw_init_local2 themselves are interposed
 * (lib/interpose/unwinders.c): hprof's own walks call the real ones
 * (own_walk.h). */
#include "unwind/own_walk.h"
#define lu_backtrace hprof_real_unw_backtrace
#define lu_init_local2 hprof_real_unw_init_local2
#define lu_own_walk_begin hprof_own_walk_begin
#define lu_own_walk_end hprof_own_walk_end
#else
#define lu_backtrace unw_backtrace
#define lu_init_local2(c, uc, f) unw_init_local2(c, uc, f)
#define lu_own_walk_begin(e) ((void)0)
#define lu_own_walk_end() ((void)0)
#endif

/* n when every address libunwind gave is a code address, else 0 (a
 * failed walk): a value that is not one never becomes a key (cct.h). */
static int only_code(const uint64_t *ips, int n)
{
    for (int i = 0; i < n; i++)
        if (!cct_key_is_code(ips[i]))
            return 0;
    return n;
}

static int frame_limit(int max)
{
    return max + OWN_FRAMES_MAX < UNWIND_MAX_FRAMES ? max + OWN_FRAMES_MAX : UNWIND_MAX_FRAMES;
}

int lu_mpi_path(uint64_t *ips, int max)
{
    void *buf[UNWIND_MAX_FRAMES];
    int limit = frame_limit(max);
    int n = lu_backtrace(buf, limit);
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
    return only_code(ips, count);
}

static int step_cursor(uint64_t *ips, int max, const void *ucontext, int flags)
{
    unw_cursor_t cursor;
    if (lu_init_local2(&cursor, (unw_context_t *)ucontext, flags) != 0)
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
    return only_code(ips, n);
}

int lu_step_from_context(uint64_t *ips, int max, const void *ucontext)
{
    if (hprof_loader_lock_mine())
        return 0;
    lu_own_walk_begin(0); /* the real unw_init_local2 makes the cursor */
    int n = step_cursor(ips, max, ucontext, UNW_INIT_SIGNAL_FRAME);
    lu_own_walk_end();
    return n;
}

#if defined(__x86_64__)
int lu_call_site_path(uint64_t *ips, int max, const uint64_t *frame)
{
    /* The caller's registers right after its call returned: rip the
     * return address (a call frame's: looked up at rip - 1), rsp above
     * the slot, rbp as the callee found it. The others are not known,
     * and no CFI of a caller in a call path reads them. */
    ucontext_t uc;
    memset(&uc, 0, sizeof uc);
    uc.uc_mcontext.gregs[REG_RIP] = (greg_t)frame[1];
    uc.uc_mcontext.gregs[REG_RSP] = (greg_t)(uintptr_t)(frame + 2);
    uc.uc_mcontext.gregs[REG_RBP] = (greg_t)frame[0];
    lu_own_walk_begin(0);
    int n = step_cursor(ips, max, &uc, 0);
    lu_own_walk_end();
    return n;
}
#endif

int lu_signal_path(uint64_t *ips, int max, const void *ucontext)
{
    if (hprof_loader_lock_mine())
        return 0; /* libunwind could wait for good (core/loader_lock.h) */
    const ucontext_t *uc = ucontext;
    void *pc = (void *)uc->uc_mcontext.gregs[REG_RIP];
    void *buf[UNWIND_MAX_FRAMES];
    int limit = frame_limit(max);
    /* The fast trace walks through the signal frame into the interrupted
     * one; the frames before the interrupted pc are the handler's own. */
    int n = lu_backtrace(buf, limit);
    for (int i = 0; i < n && i < OWN_FRAMES_MAX; i++) {
        if (buf[i] != pc)
            continue;
        if (n >= limit)
            return 0;
        int count = 0;
        for (int k = i; k < n; k++)
            ips[count++] = (uint64_t)(uintptr_t)buf[k];
        return only_code(ips, count);
    }
    return lu_step_from_context(ips, max, ucontext);
}
