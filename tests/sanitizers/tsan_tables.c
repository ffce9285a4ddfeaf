/*
 * tsan_tables.c - the lock-free recipe table and the learner's queue under
 * ThreadSanitizer (tests/sanitizers/tsan_tables.sh), without MPI: what
 * samples and MPI calls of many threads do to them at once.
 *
 * Readers search the table (recipe_find_pc, recipe_find_ra: what a signal
 * handler does, no lock) while writers learn (recipe_learn, under the
 * learning lock, publishing each slot's key last), others queue keys for
 * the learner (learner_request: lock-free, as from a handler) and drain the
 * queue as MPI calls do (learner_drain(0): never waits), and the learner
 * thread learns and prelearns the program beside them. The keys are pcs
 * of the program's own code (hprof's among it), which has CFI. Any data race is a
 * ThreadSanitizer report; a recipe found for a key must be the key's.
 *
 *   tsan_tables [THREADS [ROUNDS]]   prints "tsan_tables: ..." and exits 1 on a bad recipe
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "unwind/learner.h"
#include "unwind/recipe.h"

static int rounds = 20;
static uint64_t lo, hi;                          /* the pcs used: the program's code */
extern const char __executable_start[], etext[]; /* the linker's */
static uint64_t bad, found_n, learned_n;

static uint64_t pc_of(unsigned i)
{
    return lo + (uint64_t)(i * 2654435761u) % (hi - lo);
}

/* A recipe found for pc (exact or its block) must say so in its key. */
static void check(const recipe *r, uint64_t key, uint64_t block)
{
    if (!r)
        return;
    __atomic_fetch_add(&found_n, 1, __ATOMIC_RELAXED);
    uint64_t k = r->key;
    if ((k != key && k != block) || r->kind < RECIPE_STEP || r->kind > RECIPE_COMPLEX)
        __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
}

static void *reader(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    for (int r = 0; r < rounds * 50; r++)
        for (unsigned i = 0; i < 500; i++) {
            uint64_t pc = pc_of(seed + i);
            check(recipe_find_pc(pc), pc | RECIPE_EXACT, RECIPE_BLOCK | (pc >> RECIPE_BLOCK_SHIFT));
            check(recipe_find_ra(pc), pc, RECIPE_BLOCK | ((pc - 1) >> RECIPE_BLOCK_SHIFT));
        }
    return NULL;
}

static void *writer(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    for (int r = 0; r < rounds; r++)
        for (unsigned i = 0; i < 50; i++) {
            uint64_t pc = pc_of(seed + r * 50 + i);
            const recipe *got = recipe_learn(pc | RECIPE_EXACT, 1);
            if (got)
                __atomic_fetch_add(&learned_n, 1, __ATOMIC_RELAXED);
            check(got, pc | RECIPE_EXACT, RECIPE_BLOCK | (pc >> RECIPE_BLOCK_SHIFT));
        }
    return NULL;
}

static void *requester(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    for (int r = 0; r < rounds; r++) {
        for (unsigned i = 0; i < 100; i++)
            learner_request(pc_of(seed + 7919 * r + i));
        learner_drain(0);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 8;
    if (argc > 2)
        rounds = atoi(argv[2]);
    lo = (uint64_t)(uintptr_t)__executable_start;
    hi = (uint64_t)(uintptr_t)etext;
    if (threads < 3 || hi - lo < 4096) {
        fprintf(stderr, "tsan_tables: need 3 threads and code (got %d, %llu bytes)\n", threads,
                (unsigned long long)(hi - lo));
        return 2;
    }
    learner_start();
    pthread_t t[threads];
    for (int i = 0; i < threads; i++) {
        void *(*fn)(void *) = i % 3 == 0 ? reader : i % 3 == 1 ? writer : requester;
        pthread_create(&t[i], NULL, fn, (void *)(uintptr_t)(i * 104729u));
    }
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    learner_drain(1);
    printf("tsan_tables: %d threads, %llu recipes learned by writers, %llu found by readers, %llu in the "
           "table, %llu bad\n",
           threads, (unsigned long long)learned_n, (unsigned long long)found_n,
           (unsigned long long)recipe_count(), (unsigned long long)bad);
    return bad || !learned_n ? 1 : 0;
}
