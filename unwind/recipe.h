/*
 * recipe.h - cached frame recipes (x86_64): how to step from a frame to its
 * caller, learned once per address from the CFI with libdw and kept in a
 * process-wide hash table that readers (also signal handlers, on any thread)
 * search without locks. Learning takes a mutex and allocates: never from a
 * signal handler.
 *
 * A recipe for address A says, for the frame executing at A:
 *   CFA = (rbp or rsp) + cfa_off; the return address is at CFA-8 (always,
 *   on x86_64); the caller's rsp is the CFA; the caller's rbp is at
 *   CFA+rbp_off, or unchanged, or unknown.
 * Keys: a return address (the frame is at the call before it: the CFI row
 * of A-1), or an exact pc with RECIPE_EXACT set (the interrupted
 * instruction of a signal sample).
 */
#ifndef HPROF_RECIPE_H
#define HPROF_RECIPE_H

#include <stdint.h>

#define RECIPE_EXACT (1ull << 63)
/* A 32-byte block of code that lies wholly inside one CFI row: key
 * RECIPE_BLOCK | (pc >> RECIPE_BLOCK_SHIFT). Learning an exact pc also
 * fills the blocks of its row, so that later samples anywhere in that row
 * (the body of a hot loop) find a recipe without learning. */
#define RECIPE_BLOCK (1ull << 62)
#define RECIPE_BLOCK_SHIFT 5

enum recipe_kind {
    RECIPE_STEP = 1, /* an ordinary frame: step with the rule */
    RECIPE_END,      /* the outermost frame (return address undefined) */
    RECIPE_BAD,      /* no unwind information: the walk fails here */
    RECIPE_COMPLEX   /* CFI we do not model (signal trampoline, expressions, PLT) */
};

enum recipe_flag {
    RECIPE_CFA_RBP = 1,   /* CFA is rbp-based (else rsp-based) */
    RECIPE_RBP_SAVED = 2, /* caller's rbp at CFA+rbp_off */
    RECIPE_RBP_UNDEF = 4, /* caller's rbp cannot be recovered */
    RECIPE_AFTER_CALL = 8 /* key is a return address and a call instruction ends right before it */
};

typedef struct recipe {
    uint64_t key; /* 0: empty slot; published last */
    int32_t cfa_off;
    int16_t rbp_off;
    uint8_t kind, flags;
} recipe;

extern recipe *recipe_table __attribute__((visibility("hidden")));
extern uint64_t recipe_mask __attribute__((visibility("hidden")));

static inline uint64_t recipe_hash(uint64_t key)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 31);
}

/* The recipe for key, or NULL when it was never learned. Lock-free,
 * async-signal-safe: writers fill a slot, then publish its key. */
static inline const recipe *recipe_find(uint64_t key)
{
    recipe *t = __atomic_load_n(&recipe_table, __ATOMIC_ACQUIRE);
    if (!t)
        return 0;
    uint64_t mask = recipe_mask;
    for (uint64_t i = recipe_hash(key) & mask;; i = (i + 1) & mask) {
        uint64_t k = __atomic_load_n(&t[i].key, __ATOMIC_ACQUIRE);
        if (k == key)
            return &t[i];
        if (k == 0)
            return 0;
    }
}

/* The recipe for the instruction at pc (the top frame of a sample): the
 * exact one, else the one of the block pc lies in. */
static inline const recipe *recipe_find_pc(uint64_t pc)
{
    const recipe *r = recipe_find(pc | RECIPE_EXACT);
    return r ? r : recipe_find(RECIPE_BLOCK | (pc >> RECIPE_BLOCK_SHIFT));
}

/* The recipe for a frame that returns to ra: its own, else the one of the
 * block that holds the call (ra - 1), learned with another address of the
 * function. Only its own tells that a call instruction precedes ra
 * (RECIPE_AFTER_CALL, needed to redirect it). */
static inline const recipe *recipe_find_ra(uint64_t ra)
{
    const recipe *r = recipe_find(ra);
    return r ? r : recipe_find(RECIPE_BLOCK | ((ra - 1) >> RECIPE_BLOCK_SHIFT));
}

/* Learns key (no-op if known) and returns its recipe; NULL when the table
 * cannot be created or is full, or when may_wait is 0 and another thread
 * is learning (then the caller walks with libunwind: its thunks are put
 * back, and the next walk cannot tell new frames from old). The lock is
 * only ever held at the program's priority (the learner thread's drains
 * and publishing, the program's own MPI calls), so a wait is one learning
 * long. Not from signal handlers. */
const recipe *recipe_learn(uint64_t key, int may_wait);

/* Prelearning (unwind/prelearn.c): a Dwfl of its own for the ELF file
 * mapped at base; the recipes of the code [start, end) (its CFI rows'
 * blocks and its calls' return addresses) read from it into one batch
 * without the learning lock, by the prelearner thread (idle priority):
 * the rows read, or -1 when none can be; the batch published under the
 * lock, by the learner thread once the read has returned: the recipes
 * added, or -1 when no more should be (at most half the table goes to
 * prelearned code: the rest is for libraries and code met later); the
 * Dwfl's end. */
void *recipe_prelearn_begin(const char *file, uint64_t base);
int recipe_prelearn_read(void *dwfl, uint64_t start, uint64_t end);
int recipe_prelearn_publish(void);
void recipe_prelearn_end(void *dwfl);

/* Forgets every recipe for an address in [low, high): code was unloaded
 * or loaded there (dlclose, dlopen), so what was learned of it, or of the
 * nothing that was there, no longer holds. Called for every module that
 * appears or goes (unwind/modules.h); takes the learning lock. */
void recipe_forget(uint64_t low, uint64_t high);

/* Number of recipes learned (for statistics). */
uint64_t recipe_count(void);

/* Does a call instruction (any encoding) end right before ra? The bytes
 * must be readable (ra lies in a module's code). */
int recipe_after_call(uint64_t ra);

#endif
