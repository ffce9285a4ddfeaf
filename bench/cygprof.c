/*
 * cygprof.c - the baseline for bench section 5: a call-path profiler driven
 * by compiler instrumentation (gcc/clang -finstrument-functions), which is
 * what Score-P/Scalasca do to user code when no filter is given: every
 * function entry and exit, inlined ones included, calls into the tool, which
 * takes a time stamp and moves along a calling context tree.
 *
 * Deliberately lean (lower cost per event than a real tool): one tree per
 * thread, children in a linked list searched linearly (the most recently
 * entered child moved to the front), time stamps from rdtsc, no MPI
 * wrappers, no trace buffers, no locking. At exit it prints one line,
 *   cygprof: N call paths, E function entries, T s in instrumented functions
 * to stderr if CYGPROF_VERBOSE is set, and writes the tree as text to
 * $CYGPROF_OUTPUT.<pid> if that is set.
 *
 * Build: compile the program with -finstrument-functions, this file without,
 * and link both.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <x86intrin.h>

#define NOINST __attribute__((no_instrument_function))

typedef struct node {
    void *fn;
    struct node *parent, *child, *sibling;
    uint64_t visits, ticks, start;
} node;

#define CHUNK 4096
static __thread node *cur __attribute__((tls_model("initial-exec")));
static __thread node *pool __attribute__((tls_model("initial-exec")));
static __thread size_t pool_left __attribute__((tls_model("initial-exec")));
static __thread size_t nodes __attribute__((tls_model("initial-exec")));
static node *main_root; /* the first thread's tree, reported at exit */

static NOINST node *new_node(node *parent, void *fn)
{
    if (pool_left == 0) {
        pool = calloc(CHUNK, sizeof(node));
        if (!pool)
            abort();
        pool_left = CHUNK;
    }
    node *n = pool++;
    pool_left--;
    nodes++;
    n->fn = fn;
    n->parent = parent;
    if (parent) {
        n->sibling = parent->child;
        parent->child = n;
    }
    return n;
}

NOINST void __cyg_profile_func_enter(void *fn, void *site)
{
    (void)site;
    node *p = cur;
    if (!p) {
        p = cur = new_node(NULL, NULL);
        if (!main_root)
            main_root = p;
    }
    node *c = p->child, *prev = NULL;
    while (c && c->fn != fn) {
        prev = c;
        c = c->sibling;
    }
    if (!c)
        c = new_node(p, fn);
    else if (prev) { /* move to the front */
        prev->sibling = c->sibling;
        c->sibling = p->child;
        p->child = c;
    }
    c->visits++;
    c->start = __rdtsc();
    cur = c;
}

NOINST void __cyg_profile_func_exit(void *fn, void *site)
{
    (void)fn;
    (void)site;
    node *c = cur;
    if (!c || !c->parent)
        return;
    c->ticks += __rdtsc() - c->start;
    cur = c->parent;
}

static NOINST void walk(node *n, int depth, FILE *f, uint64_t *entries, uint64_t *paths)
{
    for (node *c = n->child; c; c = c->sibling) {
        *entries += c->visits;
        (*paths)++;
        if (f)
            fprintf(f, "%*s%p visits %llu ticks %llu\n", 2 * depth, "", c->fn, (unsigned long long)c->visits,
                    (unsigned long long)c->ticks);
        walk(c, depth + 1, f, entries, paths);
    }
}

static NOINST __attribute__((destructor)) void report(void)
{
    if (!main_root)
        return;
    const char *out = getenv("CYGPROF_OUTPUT");
    FILE *f = NULL;
    if (out && *out) {
        char path[4096];
        snprintf(path, sizeof path, "%s.%d", out, (int)getpid());
        f = fopen(path, "w");
    }
    uint64_t entries = 0, paths = 0, ticks = 0;
    walk(main_root, 0, f, &entries, &paths);
    for (node *c = main_root->child; c; c = c->sibling)
        ticks += c->ticks;
    if (f)
        fclose(f);
    if (getenv("CYGPROF_VERBOSE"))
        fprintf(stderr,
                "cygprof: %llu call paths, %llu function entries, %llu ticks in instrumented functions\n",
                (unsigned long long)paths, (unsigned long long)entries, (unsigned long long)ticks);
}
