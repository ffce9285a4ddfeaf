#define _GNU_SOURCE
/*
 * switch_code.c - see switch_code.h.
 */
#include "unwind/switch_code.h"

#include <dlfcn.h>
#include <link.h>
#include <stddef.h>

static struct {
    uint64_t lo, hi;
} ranges[SWITCH_CODE_MAX];
static int nranges; /* published after its range */

void switch_code_add(const void *fn)
{
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    int n = __atomic_load_n(&nranges, __ATOMIC_ACQUIRE);
    if (!fn || n >= SWITCH_CODE_MAX || !dladdr1(fn, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym ||
        !sym->st_size || info.dli_saddr != fn)
        return;
    ranges[n].lo = (uint64_t)(uintptr_t)fn;
    ranges[n].hi = ranges[n].lo + sym->st_size;
    __atomic_store_n(&nranges, n + 1, __ATOMIC_RELEASE);
}

int switch_code_at(uint64_t pc)
{
    int n = __atomic_load_n(&nranges, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++)
        if (pc >= ranges[i].lo && pc < ranges[i].hi)
            return 1;
    return 0;
}
