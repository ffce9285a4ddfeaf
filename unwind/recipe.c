#define _GNU_SOURCE
/*
 * recipe.c - learning frame recipes from the CFI (libdw over the live
 * process) and the lock-free table they are kept in. See recipe.h.
 */
#if defined(__x86_64__)
#include "unwind/recipe.h"
#include "unwind/modules.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define TABLE_BITS \
    17 /* 131072 slots, 2 MiB, populated at once: no page fault in a signal handler; 3/4 at most */

recipe *recipe_table;
uint64_t recipe_mask;
static uint64_t used;
/* Recursive: learning refreshes the module record, whose hooks forget
 * recipes (recipe_forget) under this lock. */
static pthread_mutex_t learn_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static Dwfl *dwfl;
static uint64_t dwfl_generation = UINT64_MAX; /* modules_generation() it was reported at */

/* x86_64 DWARF register numbers */
enum {
    DW_RBP = 6,
    DW_RSP = 7,
    DW_RA = 16
};

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

static void forget_module(int id, const module_rec *m, int live)
{
    (void)id;
    (void)live;
    recipe_forget(m->low, m->high);
}

/* The modules as the loader lists them (unwind/modules.h), re-reported
 * when one appeared or went: libdwfl keeps what it read of the others. */
static int dwfl_refresh(void)
{
    if (!dwfl) {
        if (!(dwfl = modules_dwfl_begin()))
            return -1;
        modules_add_hook(forget_module);
    }
    modules_refresh();
    uint64_t gen = modules_generation();
    if (gen == dwfl_generation)
        return 0;
    dwfl_report_begin(dwfl);
    int rc = modules_report(dwfl, -1);
    dwfl_report_end(dwfl, NULL, NULL);
    dwfl_generation = gen;
    return rc;
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

/* The bounds libdw reports for the row that holds module address at:
 * [*s, *e), 0 on failure. */
static int row_bounds(Dwfl_Module *mod, uint64_t at, uint64_t *s, uint64_t *e)
{
    Dwarf_Addr bias, start = 0, end = 0;
    bool signalp = false;
    Dwarf_Frame *frame = frame_at(mod, at, &bias);
    if (!frame)
        return -1;
    dwarf_frame_info(frame, &start, &end, &signalp);
    free(frame);
    if (end <= start)
        return -1;
    *s = start + bias;
    *e = end + bias;
    return 0;
}

/* The true start of the row [s, e) that libdw reported for address at.
 * Its end is right, its start is not always: after DW_CFA_restore_state
 * libdw keeps the start of the row where the state was remembered, which
 * lies before rows with other rules (an epilogue's pops). Every row's end
 * is the start of the next row, so step over the rows from s until the one
 * that ends at e; when that does not work out, the row is known to cover
 * only at itself. */
#define MAX_ROW_STEPS 64

static uint64_t true_row_start(Dwfl_Module *mod, uint64_t at, uint64_t s, uint64_t e)
{
    for (int i = 0; i < MAX_ROW_STEPS && s <= at; i++) {
        uint64_t rs, re;
        if (row_bounds(mod, s, &rs, &re) != 0)
            break;
        if (re == e)
            return s; /* no row boundary between s and e */
        if (re <= s || re > at)
            break;
        s = re; /* a row boundary: the next row starts here */
    }
    return at;
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
    if (end > start && at >= start + bias && at < end + bias) {
        *re = end + bias;
        *rs = true_row_start(mod, at, start + bias, *re);
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

/* The module of address at, as loaded now. */
static Dwfl_Module *module_at(uint64_t at)
{
    dwfl_refresh();
    return dwfl ? dwfl_addrmodule(dwfl, at) : NULL;
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
    /* written under learn_lock, read without it by recipe_count */
    __atomic_store_n(&used, used + 1, __ATOMIC_RELAXED);
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

/* A return address at the first instruction of a function, with no CFI
 * before it: no call pushed it. makecontext does this, returning the
 * context's function into glibc's __start_context, whose CFI does not
 * mark its return address undefined; the frame that returns there is
 * the context's first, the outermost. (A call to a noreturn function at
 * the end of another returns to the next function's first instruction
 * too, but its own call lies under CFI.) */
static int starts_function(Dwfl_Module *mod, uint64_t pc)
{
    uint64_t rs, re;
    return row_bounds(mod, pc, &rs, &re) == 0 && rs == pc;
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
    if (r->kind == RECIPE_BAD && !exact && starts_function(mod, pc))
        r->kind = RECIPE_END;
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

/* A call instruction ends at ra, reading no byte before lo. */
static int call_before(uint64_t ra, uint64_t lo)
{
    if (ra - 5 >= lo && ((const unsigned char *)(uintptr_t)ra)[-5] == 0xE8)
        return 1;
    return ra - 10 >= lo && recipe_after_call(ra);
}

/* ---- prelearning (unwind/prelearn.c) --------------------------------------- */

/* What one function's rows give, gathered outside the lock. */
#define PRELEARN_BATCH 2048
typedef struct batch {
    int n;
    uint64_t key[PRELEARN_BATCH];
    recipe r[PRELEARN_BATCH];
} batch;

static void batch_add(batch *b, uint64_t key, const recipe *r)
{
    if (b->n < PRELEARN_BATCH) {
        b->key[b->n] = key;
        b->r[b->n++] = *r;
    }
}

/* Row [rs, re) of the function that starts at lo: its whole blocks (as
 * insert_row_blocks), and every return address in it (a call instruction
 * ends there: the key's row is that of ra - 1), as the walks would learn
 * them at their first pass. A byte sequence that only looks like a call
 * gets a key no walk meets. */
static void batch_row(batch *b, const recipe *r, uint64_t rs, uint64_t re, uint64_t lo)
{
    uint64_t size = 1ull << RECIPE_BLOCK_SHIFT;
    uint64_t first = (rs + size - 1) >> RECIPE_BLOCK_SHIFT, last = re >> RECIPE_BLOCK_SHIFT;
    for (uint64_t k = first, n = 0; k < last && n < MAX_BLOCKS_PER_ROW; k++, n++)
        batch_add(b, RECIPE_BLOCK | k, r);
    recipe rr = *r;
    rr.flags |= RECIPE_AFTER_CALL;
    for (uint64_t ra = rs + 2; ra <= re; ra++)
        if (call_before(ra, lo))
            batch_add(b, ra, &rr);
}

void *recipe_prelearn_begin(const char *file, uint64_t base)
{
    Dwfl *d = modules_dwfl_begin();
    if (!d)
        return NULL;
    dwfl_report_begin(d);
    Dwfl_Module *m = dwfl_report_elf(d, "program", file, -1, base, false);
    dwfl_report_end(d, NULL, NULL);
    if (!m) {
        dwfl_end(d);
        return NULL;
    }
    return d;
}

void recipe_prelearn_end(void *d)
{
    if (d)
        dwfl_end(d);
}

/* The batch the prelearner read and the learner publishes: one thread
 * fills it while the other waits for it (learner.c hands it over). */
static batch prelearned;

/* The rows of [start, end) are read from the prelearner's own Dwfl,
 * without the lock that MPI calls wait for when they must learn: the
 * prelearner runs at idle priority, and descheduled while holding it, it
 * would hold them for as long. */
int recipe_prelearn_read(void *d, uint64_t start, uint64_t end)
{
    batch *b = &prelearned;
    Dwfl_Module *mod = d ? dwfl_addrmodule(d, start) : NULL;
    if (!mod || learning_broken)
        return -1;
    b->n = 0;
    for (uint64_t at = start; at < end && b->n < PRELEARN_BATCH;) {
        recipe r;
        uint64_t rs, re;
        memset(&r, 0, sizeof r);
        rule_at(mod, at, &r, &rs, &re);
        if (r.kind != RECIPE_STEP || re <= at)
            break;
        batch_row(b, &r, rs, re, start);
        at = re;
    }
    return b->n;
}

int recipe_prelearn_publish(void)
{
    batch *b = &prelearned;
    int n = 0;
    pthread_mutex_lock(&learn_lock);
    register_fork_check();
    if (table_create() != 0 || used >= recipe_mask / 2) {
        n = -1;
    } else {
        for (int i = 0; i < b->n && used < recipe_mask / 2; i++)
            if (!recipe_find(b->key[i])) {
                table_insert(b->key[i], &b->r[i]);
                n++;
            }
    }
    pthread_mutex_unlock(&learn_lock);
    b->n = 0;
    return n;
}

/* A forgotten slot: it still continues probe chains, matches no key a
 * walk looks up (they are code addresses, or carry one tag bit), and is
 * never reused (a reader may hold it). */
#define RECIPE_FORGOTTEN (~0ull)

/* The code range [*lo, *hi) a key stands for. */
static void key_range(uint64_t key, uint64_t *lo, uint64_t *hi)
{
    if (key & RECIPE_EXACT) {
        *lo = key & ~RECIPE_EXACT;
        *hi = *lo + 1;
    } else if (key & RECIPE_BLOCK) {
        *lo = (key & ~RECIPE_BLOCK) << RECIPE_BLOCK_SHIFT;
        *hi = *lo + (1ull << RECIPE_BLOCK_SHIFT);
    } else {
        *lo = key - 1; /* a return address: the call before it */
        *hi = key;
    }
}

void recipe_forget(uint64_t low, uint64_t high)
{
    pthread_mutex_lock(&learn_lock);
    recipe *t = recipe_table;
    for (uint64_t i = 0; t && used && i <= recipe_mask; i++) {
        uint64_t k = t[i].key, lo, hi;
        if (k == 0 || k == RECIPE_FORGOTTEN)
            continue;
        key_range(k, &lo, &hi);
        if (hi <= low || lo >= high)
            continue;
        /* a walk that found it a moment ago fails rather than steps wrong */
        __atomic_store_n(&t[i].kind, RECIPE_BAD, __ATOMIC_RELEASE);
        __atomic_store_n(&t[i].key, RECIPE_FORGOTTEN, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&learn_lock);
}

uint64_t recipe_count(void)
{
    return __atomic_load_n(&used, __ATOMIC_RELAXED);
}
#endif
