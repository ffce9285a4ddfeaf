/*
 * row_sweep.c - every pc of the generated functions (gen_epilogues.py):
 * the recipe a walk would use there against libunwind's step from the same
 * registers and the same (made-up) stack. Linked with libhprof.a, whose
 * recipe table it drives directly, in the order samples would: each pc in
 * a random order is first looked up (an exact recipe, or the block of a
 * row learned before it, recipe_find_pc; as a return address pc+1,
 * recipe_find_ra) and learned only when nothing is found, alternately as
 * an exact pc and as a return address. So the blocks that learning fills
 * are checked at every address they cover.
 *
 *   row_sweep RANGES   RANGES: lines "offset size name" (nm -S), main among them
 * Prints "row_sweep: checked N mismatched M not_step K" and the first
 * mismatches; exits 1 if any.
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "unwind/recipe.h"

long gen_all(long x);
long (*volatile keep_gen)(long) = gen_all; /* the generated code is linked in */

static uint64_t stack[4096]; /* made-up stack: every word a distinct value */

typedef struct step {
    uint64_t ip, cfa, bp;
    int bp_known;
} step;

static int lu_step(uint64_t pc, uint64_t sp, uint64_t bp, step *out)
{
    ucontext_t uc;
    memset(&uc, 0, sizeof uc);
    uc.uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
    uc.uc_mcontext.gregs[REG_RSP] = (greg_t)sp;
    uc.uc_mcontext.gregs[REG_RBP] = (greg_t)bp;
    unw_cursor_t c;
    if (unw_init_local2(&c, (unw_context_t *)&uc, UNW_INIT_SIGNAL_FRAME) != 0 || unw_step(&c) <= 0)
        return -1;
    unw_word_t ip, cfa, rbp;
    unw_get_reg(&c, UNW_REG_IP, &ip);
    unw_get_reg(&c, UNW_REG_SP, &cfa);
    unw_get_reg(&c, UNW_X86_64_RBP, &rbp);
    out->ip = ip, out->cfa = cfa, out->bp = rbp, out->bp_known = 1;
    return 0;
}

static int recipe_step(const recipe *r, uint64_t sp, uint64_t bp, step *out)
{
    uint64_t cfa = (r->flags & RECIPE_CFA_RBP ? bp : sp) + (int64_t)r->cfa_off;
    if (cfa < (uint64_t)(uintptr_t)stack + 8 || cfa + 512 > (uint64_t)(uintptr_t)(stack + 4096))
        return -1;
    out->cfa = cfa;
    out->ip = *(uint64_t *)(uintptr_t)(cfa - 8);
    out->bp_known = !(r->flags & RECIPE_RBP_UNDEF);
    out->bp = r->flags & RECIPE_RBP_SAVED ? *(uint64_t *)(uintptr_t)(cfa + r->rbp_off) : bp;
    return 0;
}

static uint64_t checked, mismatched, not_step, printed;

static void check(const char *how, uint64_t pc, const recipe *r, const char *name, uint64_t fstart)
{
    uint64_t sp = (uint64_t)(uintptr_t)&stack[1024], bp = (uint64_t)(uintptr_t)&stack[2048];
    if (!r || r->kind != RECIPE_STEP) {
        not_step++;
        return;
    }
    step want, got;
    int lu = lu_step(pc, sp, bp, &want);
    int rc = recipe_step(r, sp, bp, &got);
    checked++;
    if (lu == 0 && rc == 0 && want.ip == got.ip && want.cfa == got.cfa &&
        (!got.bp_known || want.bp == got.bp))
        return;
    mismatched++;
    if (printed++ < 8)
        printf("mismatch %s at %s+0x%lx: libunwind %s cfa=sp%+ld ra=%lx bp=%lx; recipe cfa=%s%+d%s -> "
               "cfa=sp%+ld ra=%lx bp=%lx\n",
               how, name, (unsigned long)(pc - fstart), lu ? "cannot step" : "", (long)(want.cfa - sp),
               (unsigned long)want.ip, (unsigned long)want.bp, r->flags & RECIPE_CFA_RBP ? "rbp" : "rsp",
               r->cfa_off, r->key & RECIPE_BLOCK ? " (block)" : "", rc ? 0L : (long)(got.cfa - sp),
               (unsigned long)got.ip, (unsigned long)got.bp);
}

typedef struct fn {
    uint64_t start, size;
    char name[64];
} fn;

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    for (size_t i = 0; i < 4096; i++)
        stack[i] = 0x5a5a000000 + i * 8; /* not code: libunwind steps, does not resolve */
    FILE *f = fopen(argv[1], "r");
    if (!f)
        return 2;
    static fn fns[4096];
    int nf = 0;
    uint64_t main_off = 0;
    unsigned long off, size;
    char name[64];
    while (nf < 4096 && fscanf(f, "%lx %lx %63s", &off, &size, name) == 3) {
        if (strcmp(name, "main") == 0)
            main_off = off;
        else if (strncmp(name, "gen_", 4) == 0 && strcmp(name, "gen_all") != 0)
            fns[nf].start = off, fns[nf].size = size, strcpy(fns[nf++].name, name);
    }
    fclose(f);
    uint64_t base = (uint64_t)(uintptr_t)main - main_off;
    size_t npc = 0;
    for (int i = 0; i < nf; i++)
        npc += fns[i].size;
    uint64_t *pcs = malloc(npc * sizeof *pcs);
    int *owner = malloc(npc * sizeof *owner);
    size_t k = 0;
    for (int i = 0; i < nf; i++)
        for (uint64_t a = 0; a < fns[i].size; a++)
            owner[k] = i, pcs[k++] = base + fns[i].start + a;
    srand(7);
    for (size_t i = npc; i > 1; i--) { /* shuffle, keeping each pc's owner */
        size_t j = (size_t)rand() % i;
        uint64_t t = pcs[i - 1];
        pcs[i - 1] = pcs[j];
        pcs[j] = t;
        int o = owner[i - 1];
        owner[i - 1] = owner[j];
        owner[j] = o;
    }
    for (size_t i = 0; i < npc; i++) {
        uint64_t pc = pcs[i], fs = base + fns[owner[i]].start;
        const char *nm = fns[owner[i]].name;
        const recipe *r = recipe_find_pc(pc);
        if (!r && (i & 1))
            r = recipe_learn(pc | RECIPE_EXACT, 1);
        const recipe *ra = recipe_find_ra(pc + 1);
        if (!ra && !(i & 1))
            ra = recipe_learn(pc + 1, 1);
        if (!r)
            r = recipe_find_pc(pc);
        if (!r)
            r = recipe_learn(pc | RECIPE_EXACT, 1);
        if (!ra)
            ra = recipe_learn(pc + 1, 1);
        check("sample", pc, r, nm, fs);
        check("return", pc, ra, nm, fs);
    }
    printf("row_sweep: checked %llu mismatched %llu not_step %llu functions %d\n",
           (unsigned long long)checked, (unsigned long long)mismatched, (unsigned long long)not_step, nf);
    return mismatched ? 1 : 0;
}
