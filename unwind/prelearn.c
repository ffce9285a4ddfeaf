#define _GNU_SOURCE
/*
 * prelearn.c - the program's recipes learned from its frame index ahead of
 * its samples (see prelearn.h).
 *
 * The function starts come from the executable's .eh_frame_hdr as the
 * loader mapped it (PT_GNU_EH_FRAME): a sorted table of (start, FDE)
 * pairs, read where it is, with no file opened. Each function's rows are
 * read from its start to the next function's (recipe_prelearn_read stops
 * at the first address without CFI).
 */
#if defined(__x86_64__)
#include "unwind/prelearn.h"

#include <link.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "core/config.h"
#include "core/log.h"
#include "unwind/recipe.h"
#include "core/real_dl.h"

#define PRELEARN_MAX_FUNCTIONS 50000
#define PRELEARN_MAX_NS 2000000000ull /* of the prelearner's own CPU time */

/* DWARF pointer encodings the table uses (GNU ld and gold: datarel sdata4) */
#define DW_EH_PE_udata4 0x03
#define DW_EH_PE_sdata4 0x0b
#define DW_EH_PE_pcrel 0x10
#define DW_EH_PE_datarel 0x30
#define DW_EH_PE_omit 0xff

/* The first object the loader lists is the executable. */
static int find_table(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    prelearn *t = arg;
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

int prelearn_begin(prelearn *p)
{
    *p = (prelearn){ 0 };
    if (!hprof_config.prelearn)
        return 0;
    hprof_loader_iterate(find_table, p);
    if (!p->count)
        return 0;
    p->dwfl = recipe_prelearn_begin("/proc/self/exe", p->base);
    if (!p->dwfl)
        return 0;
    p->n = p->count < PRELEARN_MAX_FUNCTIONS ? p->count : PRELEARN_MAX_FUNCTIONS;
    p->t0 = cpu_ns();
    return 1;
}

int prelearn_next(prelearn *p)
{
    if (p->i >= p->n || (p->i > 0 && cpu_ns() - p->t0 > PRELEARN_MAX_NS))
        return 0;
    uint64_t start = p->hdr + (int64_t)p->pairs[2 * p->i];
    uint64_t end = p->i + 1 < p->count ? p->hdr + (int64_t)p->pairs[2 * p->i + 2] : start + 4096;
    if (end <= start || recipe_prelearn_read(p->dwfl, start, end) < 0) {
        p->n = p->i; /* no further */
        return 0;
    }
    return 1;
}

void prelearn_publish(prelearn *p)
{
    int got = recipe_prelearn_publish();
    if (got < 0) {
        p->n = p->i; /* the table has no more room for prelearned code */
        return;
    }
    p->blocks += (uint64_t)got;
    p->i++;
}

void prelearn_end(prelearn *p)
{
    recipe_prelearn_end(p->dwfl);
    hprof_verbose(1,
                  "prelearned the recipes of %llu of the program's %llu functions (%llu recipes) in %.1f ms "
                  "of CPU time",
                  (unsigned long long)p->i, (unsigned long long)p->count, (unsigned long long)p->blocks,
                  (double)(cpu_ns() - p->t0) * 1e-6);
}
#endif
