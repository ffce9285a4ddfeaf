#define _GNU_SOURCE
/*
 * exact_patch.c - see exact_patch.h.
 */
#include "lib/exact/exact_patch.h"

#include <errno.h>
#include <link.h>
#include <linux/membarrier.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/real_dl.h"

#define REACH (1ull << 31) /* what a rel32 reaches */
#define PAGE 4096ull

/* ---- stubs ------------------------------------------------------------------ */

/* A free block of len bytes with every byte within REACH of [low, high):
 * tried below the module first (above a non-PIE program lies its heap),
 * then above, at growing distances. */
static void *map_near(uint64_t low, uint64_t high, size_t len)
{
    for (uint64_t step = 1 << 20; step < REACH; step *= 2) {
        uint64_t tries[2] = { low > step + len ? (low - step - len) & ~(PAGE - 1) : 0,
                              (high + step + PAGE - 1) & ~(PAGE - 1) };
        for (int i = 0; i < 2; i++) {
            uint64_t at = tries[i];
            uint64_t span_lo = at < low ? at : low, span_hi = at + len > high ? at + len : high;
            if (at < 0x10000 || span_hi - span_lo >= REACH)
                continue;
            void *p = mmap((void *)(uintptr_t)at, len, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
            if (p == MAP_FAILED)
                continue;
            if ((uint64_t)(uintptr_t)p != at) { /* a kernel without MAP_FIXED_NOREPLACE took it as a hint */
                munmap(p, len);
                continue;
            }
            return p;
        }
    }
    return NULL;
}

static size_t stubs_len(int n)
{
    return ((size_t)(n + 1) * EXACT_STUB_SIZE + PAGE - 1) & ~(PAGE - 1);
}

/* The entry's address at p, then n stubs for the ids first_id.. (p
 * writable), and the block made executable; its record in b. */
static int stubs_write(exact_stubs *b, unsigned char *p, size_t len, uint32_t first_id, int n, uint64_t entry)
{
    memcpy(p, &entry, 8); /* the trampoline's address, read by every stub's jmp */
    for (int i = 0; i < n; i++) {
        unsigned char *s = p + (size_t)(i + 1) * EXACT_STUB_SIZE;
        uint32_t id = first_id + (uint32_t)i;
        int32_t rel = (int32_t)((intptr_t)p - (intptr_t)(s + 12));
        s[0] = 0x41, s[1] = 0xbb; /* mov $id, %r11d */
        memcpy(s + 2, &id, 4);
        s[6] = 0xff, s[7] = 0x25; /* jmp *entry(%rip) */
        memcpy(s + 8, &rel, 4);
        memset(s + 12, 0xcc, 4);
    }
    if (mprotect(p, len, PROT_READ | PROT_EXEC) != 0)
        return -1;
    b->base = (uint64_t)(uintptr_t)p + EXACT_STUB_SIZE;
    b->len = len;
    b->n = n;
    return 0;
}

int exact_stubs_make(exact_stubs *b, uint64_t low, uint64_t high, uint32_t first_id, int n, uint64_t entry)
{
    size_t len = stubs_len(n);
    unsigned char *p = map_near(low, high, len);
    if (!p)
        return -1;
    if (stubs_write(b, p, len, first_id, n, entry) != 0) {
        munmap(p, len);
        return -1;
    }
    return 0;
}

int exact_stubs_reuse(exact_stubs *b, const exact_stubs *old, uint64_t low, uint64_t high, uint32_t first_id,
                      int n, uint64_t entry)
{
    uint64_t at = old->base - EXACT_STUB_SIZE;
    uint64_t span_lo = at < low ? at : low, span_hi = at + old->len > high ? at + old->len : high;
    if (stubs_len(n) > old->len || span_hi - span_lo >= REACH)
        return -1;
    unsigned char *p = (unsigned char *)(uintptr_t)at;
    if (mprotect(p, old->len, PROT_READ | PROT_WRITE) != 0 ||
        stubs_write(b, p, old->len, first_id, n, entry) != 0)
        return -2;
    return 0;
}

/* ---- writing the code --------------------------------------------------------- */

/* Every thread of the process serializes its instruction fetch before it
 * runs again (Linux 4.16+); where the kernel has no such command the
 * long jumps were written to bytes no thread runs, which is all it takes on
 * x86 (its caches snoop the stores). */
static int sync_core_ready = -1;

static void sync_cores(void)
{
    if (sync_core_ready < 0)
        sync_core_ready =
            syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0) == 0;
    if (sync_core_ready)
        syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
}

/* One store of the two bytes at p (no cache line splits them: exact_sites.c). */
static void store2(uint64_t p, uint16_t v)
{
    __asm__ volatile("movw %1, (%0)" : : "r"(p), "r"(v) : "memory");
}

typedef struct prot_query {
    uint64_t addr;
    int prot;
} prot_query;

static int find_prot(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    prot_query *q = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uint64_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && q->addr >= lo && q->addr < lo + ph->p_memsz) {
            q->prot = (ph->p_flags & PF_R ? PROT_READ : 0) | (ph->p_flags & PF_W ? PROT_WRITE : 0) |
                      (ph->p_flags & PF_X ? PROT_EXEC : 0);
            return 1;
        }
    }
    return 0;
}

/* The protection the loader gave the page of addr (its segment's). */
static int loaded_prot(uint64_t addr)
{
    prot_query q = { addr, PROT_READ | PROT_EXEC };
    hprof_loader_iterate(find_prot, &q);
    return q.prot;
}

typedef struct run {
    uint64_t lo, hi; /* pages [lo, hi) */
    int prot;        /* as loaded */
} run;

static const exact_site *sort_sites;
static int by_site(const void *a, const void *b)
{
    uint64_t x = sort_sites[*(const int *)a].stub_jmp_at, y = sort_sites[*(const int *)b].stub_jmp_at;
    return x < y ? -1 : x > y;
}

/* The pages the sites' bytes lie on, as runs of adjacent pages. */
static int page_runs(const exact_site *sites, int *order, int n, run **out)
{
    run *r = malloc((size_t)(n + 1) * sizeof *r);
    if (!r)
        return -1;
    sort_sites = sites;
    qsort(order, (size_t)n, sizeof *order, by_site);
    int k = 0;
    for (int i = 0; i < n; i++) {
        const exact_site *s = &sites[order[i]];
        uint64_t lo = s->stub_jmp_at & ~(PAGE - 1), hi = (s->jmp_at + 2 + PAGE - 1) & ~(PAGE - 1);
        if (k > 0 && lo <= r[k - 1].hi && loaded_prot(lo) == r[k - 1].prot) {
            if (hi > r[k - 1].hi)
                r[k - 1].hi = hi;
        } else {
            r[k++] = (run){ lo, hi, loaded_prot(lo) };
        }
    }
    *out = r;
    return k;
}

static void write_stub_jumps(const exact_site *sites, const uint64_t *stub, const int *order, int n)
{
    for (int i = 0; i < n; i++) {
        const exact_site *s = &sites[order[i]];
        unsigned char jmp[5] = { 0xe9 };
        int32_t rel = (int32_t)((int64_t)stub[order[i]] - (int64_t)(s->stub_jmp_at + 5));
        memcpy(jmp + 1, &rel, 4);
        memcpy((void *)(uintptr_t)s->stub_jmp_at, jmp, 5);
    }
}

static void write_jumps(const exact_site *sites, const int *order, int n, int on)
{
    for (int i = 0; i < n; i++) {
        const exact_site *s = &sites[order[i]];
        int8_t back = (int8_t)((int64_t)s->stub_jmp_at - (int64_t)(s->jmp_at + 2));
        uint16_t jmp = (uint16_t)(0xeb | (uint16_t)(uint8_t)back << 8);
        store2(s->jmp_at, on ? jmp : s->nops);
    }
}

int exact_patch(const exact_site *sites, const uint64_t *stub, const int *which, int n, int on, char *err,
                size_t errlen)
{
    if (n <= 0)
        return 0;
    int *order = malloc((size_t)n * sizeof *order);
    run *runs = NULL;
    int nruns =
        order ? (memcpy(order, which, (size_t)n * sizeof *order), page_runs(sites, order, n, &runs)) : -1;
    if (nruns < 0) {
        free(order);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int done = 0, rc = 0;
    for (; done < nruns; done++) {
        if (mprotect((void *)(uintptr_t)runs[done].lo, runs[done].hi - runs[done].lo,
                     runs[done].prot | PROT_READ | PROT_WRITE | PROT_EXEC) != 0) {
            snprintf(err, errlen, "its code cannot be made writable (mprotect: %s%s)", strerror(errno),
                     errno == EACCES ? ", as SELinux's execmod or a similar policy refuses" : "");
            rc = -1;
            break;
        }
    }
    if (rc == 0) {
        if (on) {
            write_stub_jumps(sites, stub, order, n);
            sync_cores();
        }
        write_jumps(sites, order, n, on);
    }
    for (int i = 0; i < done; i++)
        mprotect((void *)(uintptr_t)runs[i].lo, runs[i].hi - runs[i].lo, runs[i].prot);
    free(runs);
    free(order);
    return rc;
}
