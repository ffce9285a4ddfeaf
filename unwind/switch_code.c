#define _GNU_SOURCE
/*
 * switch_code.c - see switch_code.h.
 */
#include "unwind/switch_code.h"

#include <dlfcn.h>
#include <link.h>
#include <stddef.h>

#include "core/real_dl.h"

static struct {
    uint64_t lo, hi;
} ranges[SWITCH_CODE_MAX];
static int nranges; /* published after its range */

static void add_range(uint64_t lo, uint64_t hi)
{
    int n = __atomic_load_n(&nranges, __ATOMIC_ACQUIRE);
    if (n >= SWITCH_CODE_MAX)
        return;
    ranges[n].lo = lo;
    ranges[n].hi = hi;
    __atomic_store_n(&nranges, n + 1, __ATOMIC_RELEASE);
}

/* dl_iterate_phdr: the executable PT_LOAD that holds *(uint64_t *)data,
 * in a shared library (never the program's own code: an unwinder linked
 * into it would take all of it). */
static int add_segment_of(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    uint64_t a = *(const uint64_t *)data;
    if (!info->dlpi_name || !info->dlpi_name[0])
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uint64_t lo = (uint64_t)info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && a >= lo && a < lo + ph->p_memsz) {
            add_range(lo, lo + ph->p_memsz);
            return 1;
        }
    }
    return 0;
}

void switch_code_add(const void *fn)
{
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    if (!fn || !dladdr1(fn, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym || !sym->st_size ||
        info.dli_saddr != fn)
        return;
    add_range((uint64_t)(uintptr_t)fn, (uint64_t)(uintptr_t)fn + sym->st_size);
}

void switch_code_add_module(const void *a)
{
    uint64_t address = (uint64_t)(uintptr_t)a;
    if (a)
        hprof_loader_iterate(add_segment_of, &address);
}

int switch_code_at(uint64_t pc)
{
    int n = __atomic_load_n(&nranges, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++)
        if (pc >= ranges[i].lo && pc < ranges[i].hi)
            return 1;
    return 0;
}
