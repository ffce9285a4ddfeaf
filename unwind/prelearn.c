#define _GNU_SOURCE
/*
 * prelearn.c - the program's recipes learned from its frame index ahead of
 * its samples (see prelearn.h).
 *
 * The function starts come from the executable's .eh_frame_hdr as the
 * loader mapped it (PT_GNU_EH_FRAME): a sorted table of (start, FDE)
 * pairs, read where it is, with no file opened. Each function's rows are
 * learned from its start to the next function's (recipe_prelearn stops
 * at the first address without CFI).
 */
#if defined(__x86_64__)
#include "unwind/prelearn.h"

#include <link.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "core/config.h"
#include "unwind/learner.h"
#include "core/log.h"
#include "unwind/recipe.h"

#define PRELEARN_MAX_FUNCTIONS 50000
#define PRELEARN_MAX_NS 2000000000ull /* of the learner's own CPU time */

/* DWARF pointer encodings the table uses (GNU ld and gold: datarel sdata4) */
#define DW_EH_PE_udata4 0x03
#define DW_EH_PE_sdata4 0x0b
#define DW_EH_PE_pcrel 0x10
#define DW_EH_PE_datarel 0x30
#define DW_EH_PE_omit 0xff

typedef struct table {
    const int32_t *pairs; /* (start, fde) relative to hdr */
    uint64_t hdr;
    uint64_t count;
    uint64_t base;        /* the executable's load address */
} table;

/* The first object the loader lists is the executable. */
static int find_table(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    table *t = arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_GNU_EH_FRAME || ph->p_memsz < 12)
            continue;
        const uint8_t *h = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
        /* version 1; eh_frame_ptr any 4-byte form; count udata4/sdata4;
         * table datarel sdata4: 8 bytes a pair after the 12-byte header */
        if (h[0] != 1 || h[2] == DW_EH_PE_omit || (h[1] & 0x0f) != DW_EH_PE_sdata4 ||
            ((h[2] & 0x0f) != DW_EH_PE_udata4 && (h[2] & 0x0f) != DW_EH_PE_sdata4) ||
            h[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
            break;
        uint32_t n;
        memcpy(&n, h + 8, 4);
        if ((uint64_t)n * 8 + 12 > ph->p_memsz)
            break;
        t->hdr = (uint64_t)(uintptr_t)h;
        t->base = info->dlpi_addr;
        t->pairs = (const int32_t *)(h + 12);
        t->count = n;
        break;
    }
    return 1; /* only the first object */
}

static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void prelearn_program(void)
{
    if (!hprof_config.prelearn)
        return;
    table t = { 0, 0, 0, 0 };
    dl_iterate_phdr(find_table, &t);
    if (!t.count)
        return;
    void *dwfl = recipe_prelearn_begin("/proc/self/exe", t.base);
    if (!dwfl)
        return;
    uint64_t n = t.count < PRELEARN_MAX_FUNCTIONS ? t.count : PRELEARN_MAX_FUNCTIONS;
    uint64_t t0 = cpu_ns(), blocks = 0, i;
    for (i = 0; i < n; i++) {
        uint64_t start = t.hdr + (int64_t)t.pairs[2 * i];
        uint64_t end = i + 1 < t.count ? t.hdr + (int64_t)t.pairs[2 * i + 2] : start + 4096;
        int got = end > start ? recipe_prelearn(dwfl, start, end) : -1;
        if (got < 0)
            break;
        blocks += (uint64_t)got;
        learner_drain(1); /* what samples missed meanwhile comes first */
        if (cpu_ns() - t0 > PRELEARN_MAX_NS)
            break;
    }
    recipe_prelearn_end(dwfl);
    hprof_verbose(1, "prelearned the recipes of %llu of the program's %llu functions (%llu recipes) in %.1f ms of CPU time",
                  (unsigned long long)i, (unsigned long long)t.count, (unsigned long long)blocks,
                  (double)(cpu_ns() - t0) * 1e-6);
}
#endif
