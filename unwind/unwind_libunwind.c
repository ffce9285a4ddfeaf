#define _GNU_SOURCE
/*
 * unwind_libunwind.c - the portable call-path capture (architectures other
 * than x86_64): libunwind alone (libunwind_walk.c), no thunks.
 */
#if !defined(__x86_64__) /* x86_64: unwind_x86_64.c */
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <ucontext.h>

#include "unwind/libunwind_walk.h"
#include "core/own_code.h"
#include "unwind/tree_path.h"
#include "unwind/unwind.h"

int unwind_mpi_path(uint64_t *ips, int max)
{
    return lu_mpi_path(ips, max);
}

void unwind_thread_init(void)
{
    void *buf[4];
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    unw_backtrace(buf, 4);
}

void unwind_process_start(void)
{
}

void unwind_thread_end(void)
{
}

int unwind_signal_path(uint64_t *ips, int max, const void *ucontext)
{
    return lu_signal_path(ips, max, ucontext);
}

uint32_t unwind_mpi_node(cct *tree, const void *wrapper_frame, int *failed)
{
    (void)wrapper_frame;
    uint64_t keys[UNWIND_MAX_FRAMES];
    int n = unwind_mpi_path(keys, UNWIND_MAX_FRAMES);
    *failed = n <= 0;
    if (cct_reserve(tree, n > 0 ? (uint32_t)n + 1 : 2) != 0)
        return CCT_NONE;
    return n > 0 ? cct_path(tree, keys, n) : tree_path_failed(tree, NULL, 0);
}

uint32_t unwind_mpi_node_in_handler(cct *tree, const void *wrapper_frame, int *failed)
{
    (void)tree;
    (void)wrapper_frame;
    *failed = 1; /* from a handler libunwind would walk the signal frame and MPI's own */
    return CCT_NONE;
}

uint32_t unwind_mpi_cached(const void *wrapper_frame)
{
    (void)wrapper_frame;
    return CCT_NONE; /* no thunks: nothing tells an unchanged path */
}

int unwind_site_needs_bp(const void *wrapper_frame)
{
    (void)wrapper_frame;
    return 1;
}

void unwind_token_take(unwind_token *tok)
{
    tok->epoch_at = NULL; /* no thunks: nothing to promise */
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
        return tree_path_failed(tree, NULL, 0);
    keys[0] += 1;
    return cct_path(tree, keys, n);
}

void unwind_restore_thunks(void)
{
}
#endif
