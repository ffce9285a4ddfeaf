#define _GNU_SOURCE
/*
 * recipe.c - learning frame recipes from the CFI (libdw over the live
 * process) and the lock-free table they are kept in. See recipe.h.
 */
#if defined(__x86_64__)
#include "recipe.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define TABLE_BITS 17 /* 131072 slots, 2 MiB, populated at once: no page fault in a signal handler; 3/4 at most */

recipe *recipe_table;
uint64_t recipe_mask;
static uint64_t used;
static pthread_mutex_t learn_lock = PTHREAD_MUTEX_INITIALIZER;
static Dwfl *dwfl;
static char *debuginfo_path;

/* x86_64 DWARF register numbers */
enum { DW_RBP = 6, DW_RSP = 7, DW_RA = 16 };

static int table_create(void)
{
    if (recipe_table)
        return 0;
    size_t n = (size_t)1 << TABLE_BITS;
    void *p = mmap(NULL, n * sizeof(recipe), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    recipe_mask = n - 1;
    __atomic_store_n(&recipe_table, (recipe *)p, __ATOMIC_RELEASE);
    return 0;
}

static int dwfl_refresh(void)
{
    static const Dwfl_Callbacks callbacks = {
        .find_elf = dwfl_linux_proc_find_elf,
        .find_debuginfo = dwfl_standard_find_debuginfo,
        .debuginfo_path = &debuginfo_path,
    };
    if (!dwfl && !(dwfl = dwfl_begin(&callbacks)))
        return -1;
    dwfl_report_begin(dwfl);
    int rc = dwfl_linux_proc_report(dwfl, getpid());
    dwfl_report_end(dwfl, NULL, NULL);
    return rc == 0 ? 0 : -1;
}

/* ---- is there a call right before ra? ---------------------------------- */

/* Length of the ModRM-addressed operand starting at p (ModRM, SIB, disp). */
static int modrm_len(const unsigned char *p)
{
    unsigned mod = p[0] >> 6, rm = p[0] & 7;
    int len = 1;
    if (mod == 3)
        return len;
    if (rm == 4) { /* SIB */
        len++;
        if (mod == 0 && (p[1] & 7) == 5)
            return len + 4;
    }
    if (mod == 0 && rm == 5)
        return len + 4; /* rip-relative */
    if (mod == 1)
        return len + 1;
    if (mod == 2)
        return len + 4;
    return len;
}

int recipe_after_call(uint64_t ra)
{
    const unsigned char *end = (const unsigned char *)(uintptr_t)ra;
    if (end[-5] == 0xE8)
        return 1; /* call rel32 */
    /* call r/m64: [prefixes] FF /2 modrm [sib] [disp]; at most 2 prefixes
     * (notrack 3E, REX), total at most 10 bytes */
    for (int len = 2; len <= 10; len++) {
        const unsigned char *p = end - len;
        int i = 0;
        while (i < 2 && (p[i] == 0x3E || (p[i] & 0xF0) == 0x40))
            i++;
        if (p[i] != 0xFF || ((p[i + 1] >> 3) & 7) != 2)
            continue;
        if (p + i + 1 + modrm_len(p + i + 1) == end)
            return 1;
    }
    return 0;
}

/* ---- learning ------------------------------------------------------------ */

/* CFA rule: one DW_OP_bregN / DW_OP_bregx on rsp or rbp. */
static int parse_cfa(Dwarf_Op *ops, size_t n, recipe *r)
{
    if (n != 1)
        return -1;
    int reg;
    int64_t off;
    if (ops[0].atom == DW_OP_bregx) {
        reg = (int)ops[0].number;
        off = (int64_t)ops[0].number2;
    } else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
        reg = ops[0].atom - DW_OP_breg0;
        off = (int64_t)ops[0].number;
    } else {
        return -1;
    }
    if ((reg != DW_RSP && reg != DW_RBP) || off < INT32_MIN || off > INT32_MAX)
        return -1;
    r->cfa_off = (int32_t)off;
    if (reg == DW_RBP)
        r->flags |= RECIPE_CFA_RBP;
    return 0;
}

/* offset(N) rule: DW_OP_call_frame_cfa, DW_OP_plus_uconst N (N as a signed value) */
static int parse_offset(Dwarf_Op *ops, size_t n, int64_t *off)
{
    if (n == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
        *off = 0;
        return 0;
    }
    if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_plus_uconst) {
        *off = (int64_t)ops[1].number;
        return 0;
    }
    if (n == 3 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_consts &&
        ops[2].atom == DW_OP_plus) {
        *off = (int64_t)ops[1].number;
        return 0;
    }
    return -1;
}

/* The frame of the CFI row that holds module address at (eh_frame first,
 * then .debug_frame); NULL if none. The caller frees it. */
static Dwarf_Frame *frame_at(Dwfl_Module *mod, uint64_t at, Dwarf_Addr *bias)
{
    Dwarf_Frame *frame = NULL;
    Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, bias);
    if (cfi && dwarf_cfi_addrframe(cfi, at - *bias, &frame) == 0)
        return frame;
    cfi = dwfl_module_dwarf_cfi(mod, bias);
    if (cfi && dwarf_cfi_addrframe(cfi, at - *bias, &frame) == 0)
        return frame;
    return NULL;
}

/* The recipe of the row that holds at, and the row's bounds [*rs, *re)
 * (0, 0 when unknown). kind RECIPE_BAD when there is no CFI for it. */
static void rule_at(Dwfl_Module *mod, uint64_t at, recipe *r, uint64_t *rs, uint64_t *re)
{
    *rs = *re = 0;
    r->kind = RECIPE_BAD;
    Dwarf_Addr bias;
    Dwarf_Frame *frame = frame_at(mod, at, &bias);
    if (!frame)
        return;
    r->kind = RECIPE_COMPLEX;
    bool signalp = false;
    Dwarf_Op *ops;
    size_t nops;
    Dwarf_Addr start = 0, end = 0;
    if (dwarf_frame_info(frame, &start, &end, &signalp) != DW_RA || signalp)
        goto out;
    if (end > start) {
        *rs = start + bias;
        *re = end + bias;
    }
    if (dwarf_frame_cfa(frame, &ops, &nops) != 0 || parse_cfa(ops, nops, r) != 0)
        goto out;
    Dwarf_Op mem[3];
    int64_t off;
    if (dwarf_frame_register(frame, DW_RA, mem, &ops, &nops) != 0)
        goto out;
    if (nops == 0 && ops == mem) {
        r->kind = RECIPE_END; /* return address undefined: outermost frame */
        goto out;
    }
    if (parse_offset(ops, nops, &off) != 0 || off != -8)
        goto out;
    if (dwarf_frame_register(frame, DW_RBP, mem, &ops, &nops) != 0)
        goto out;
    if (nops == 0) {
        if (ops == mem)
            r->flags |= RECIPE_RBP_UNDEF;
    } else if (parse_offset(ops, nops, &off) == 0 && off >= INT16_MIN && off <= INT16_MAX) {
        r->flags |= RECIPE_RBP_SAVED;
        r->rbp_off = (int16_t)off;
    } else {
        goto out;
    }
    /* the caller's rsp must be the CFA (its rule is "val_offset(0)" or implicit) */
    if (dwarf_frame_register(frame, DW_RSP, mem, &ops, &nops) != 0)
        goto out;
    if (nops != 0 && !(nops == 2 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_stack_value))
        goto out;
    r->kind = RECIPE_STEP;
out:
    free(frame);
}

/* The module of address at, reporting modules loaded since the last look. */
static Dwfl_Module *module_at(uint64_t at)
{
    Dwfl_Module *mod = dwfl ? dwfl_addrmodule(dwfl, at) : NULL;
    if (!mod && dwfl_refresh() == 0)
        mod = dwfl_addrmodule(dwfl, at);
    return mod;
}

/* Publishes r under key (the caller holds learn_lock and checked room). */
static recipe *table_insert(uint64_t key, const recipe *r)
{
    uint64_t i = recipe_hash(key) & recipe_mask;
    while (recipe_table[i].key != 0)
        i = (i + 1) & recipe_mask;
    recipe *slot = &recipe_table[i];
    slot->cfa_off = r->cfa_off;
    slot->rbp_off = r->rbp_off;
    slot->kind = r->kind;
    slot->flags = r->flags;
    __atomic_store_n(&slot->key, key, __ATOMIC_RELEASE);
    used++;
    return slot;
}

static int table_has_room(void)
{
    return used < recipe_mask / 4 * 3;
}

/* The blocks wholly inside row [rs, re) get its (stepping) recipe, so that
 * later samples anywhere in the row (a hot loop's body) and the function's
 * other call sites in it (through the block of ra - 1) find a recipe
 * without a miss; a long row is capped so one function cannot fill the
 * table. */
#define MAX_BLOCKS_PER_ROW 256

static void insert_row_blocks(const recipe *r, uint64_t rs, uint64_t re)
{
    if (r->kind != RECIPE_STEP || re <= rs)
        return;
    uint64_t size = 1ull << RECIPE_BLOCK_SHIFT;
    uint64_t first = (rs + size - 1) >> RECIPE_BLOCK_SHIFT;
    uint64_t last = re >> RECIPE_BLOCK_SHIFT; /* blocks [first, last) fit */
    for (uint64_t b = first, n = 0; b < last && n < MAX_BLOCKS_PER_ROW; b++, n++) {
        if (!table_has_room())
            return;
        if (!recipe_find(RECIPE_BLOCK | b))
            table_insert(RECIPE_BLOCK | b, r);
    }
}

/* The recipe of key: a return address (the frame is at the call before
 * it, the row of A-1) or an exact pc. */
static void learn_rule(uint64_t key, recipe *r)
{
    int exact = (key & RECIPE_EXACT) != 0;
    uint64_t pc = key & ~RECIPE_EXACT;
    uint64_t at = exact ? pc : pc - 1;
    r->kind = RECIPE_BAD;
    Dwfl_Module *mod = module_at(at);
    if (!mod)
        return;
    uint64_t rs, re;
    rule_at(mod, at, r, &rs, &re);
    if (r->kind == RECIPE_STEP && !exact && recipe_after_call(pc))
        r->flags |= RECIPE_AFTER_CALL;
    insert_row_blocks(r, rs, re);
}

/* A child of fork whose parent was learning on another thread (the
 * learner) inherits the lock taken and libdw's state half-updated: it
 * does not learn, and walks with libunwind where a recipe is missing. */
static int learning_broken;

static void check_lock_after_fork(void)
{
    if (pthread_mutex_trylock(&learn_lock) == 0)
        pthread_mutex_unlock(&learn_lock);
    else
        learning_broken = 1;
}

static void register_fork_check(void)
{
    static int registered;
    if (!registered) {
        registered = 1;
        pthread_atfork(NULL, NULL, check_lock_after_fork);
    }
}

const recipe *recipe_learn(uint64_t key, int may_wait)
{
    const recipe *found = recipe_find(key);
    if (found || learning_broken)
        return found;
    if (may_wait)
        pthread_mutex_lock(&learn_lock);
    else if (pthread_mutex_trylock(&learn_lock) != 0)
        return NULL;
    register_fork_check();
    const recipe *result = NULL;
    if (table_create() != 0 || (found = recipe_find(key)) != NULL) {
        result = found;
        goto out;
    }
    if (!table_has_room())
        goto out; /* full: callers fall back to libunwind */
    if (!dwfl)
        dwfl_refresh();
    recipe r;
    memset(&r, 0, sizeof r);
    learn_rule(key, &r);
    result = table_has_room() ? table_insert(key, &r) : NULL;
out:
    pthread_mutex_unlock(&learn_lock);
    return result;
}

uint64_t recipe_count(void)
{
    return __atomic_load_n(&used, __ATOMIC_RELAXED);
}
#endif
