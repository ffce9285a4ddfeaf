/*
 * exact_seen.c - see exact_seen.h. A node's key is an address inside its
 * frame's function (a return address, a sample's pc + 1, an exactly
 * measured call's entry + 1): key - 1 gives the function. Its parent's
 * function called it; an MPI call's leaf puts every function above it on
 * a path to MPI.
 */
#include "lib/exact/exact_seen.h"

#include <stdlib.h>
#include <string.h>

#include "core/cct.h"
#include "lib/threads/thread.h"

typedef struct collector {
    const exact_range *r;
    int n, nfn;
    exact_seen *out;
    int cap, failed;
} collector;

static int fn_of(const collector *c, uint64_t key)
{
    if (!cct_key_is_code(key))
        return -1;
    uint64_t a = key - 1;
    int lo = 0, hi = c->n;
    while (lo < hi) { /* the last range starting at or below a */
        int mid = (lo + hi) / 2;
        if (c->r[mid].lo <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && a < c->r[lo - 1].hi ? c->r[lo - 1].fn : -1;
}

static void add_seen_call(collector *c, int caller, int callee)
{
    exact_seen *s = c->out;
    if (s->ncalls == c->cap) {
        int cap = c->cap ? 2 * c->cap : 256;
        int(*v)[2] = realloc(s->calls, (size_t)cap * sizeof *v);
        if (!v) {
            c->failed = 1;
            return;
        }
        s->calls = v;
        c->cap = cap;
    }
    s->calls[s->ncalls][0] = caller;
    s->calls[s->ncalls][1] = callee;
    s->ncalls++;
}

static void one_tree(const cct *tree, void *ctx)
{
    collector *c = ctx;
    uint32_t n = __atomic_load_n(&tree->nnodes, __ATOMIC_ACQUIRE);
    int *fn = malloc((size_t)n * sizeof *fn + 1);
    if (!fn) {
        c->failed = 1;
        return;
    }
    fn[0] = -1;
    c->out->ntrees++;
    for (uint32_t i = 1; i < n; i++) { /* parents come before their children */
        const cct_node *node = &tree->nodes[i];
        fn[i] = fn_of(c, node->key);
        int p = node->parent < i ? fn[node->parent] : -1;
        if (p >= 0 && fn[i] >= 0)
            add_seen_call(c, p, fn[i]);
        c->out->total_samples += node->counter[CCT_SAMPLES];
        if (fn[i] >= 0) {
            c->out->samples[fn[i]] += node->counter[CCT_SAMPLES];
            c->out->visits[fn[i]] += node->counter[CCT_EXACT_VISITS];
        }
        if (cct_key_mpi_fn(node->key, 1 << 30) >= 0)
            for (uint32_t a = node->parent; a != CCT_ROOT && a < i; a = tree->nodes[a].parent)
                if (fn[a] >= 0)
                    c->out->on_mpi[fn[a]] = 1;
    }
    free(fn);
}

static int by_pair(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

int exact_seen_collect(const exact_range *r, int n, int nfn, exact_seen *out)
{
    memset(out, 0, sizeof *out);
    out->on_mpi = calloc((size_t)nfn + 1, 1);
    out->samples = calloc((size_t)nfn + 1, sizeof *out->samples);
    out->visits = calloc((size_t)nfn + 1, sizeof *out->visits);
    if (!out->on_mpi || !out->samples || !out->visits)
        return -1;
    collector c = { r, n, nfn, out, 0, 0 };
    hprof_thread_each_tree(one_tree, &c);
    qsort(out->calls, (size_t)out->ncalls, sizeof *out->calls, by_pair);
    int k = 0;
    for (int i = 0; i < out->ncalls; i++)
        if (k == 0 || by_pair(out->calls[i], out->calls[k - 1]) != 0)
            memcpy(out->calls[k++], out->calls[i], sizeof *out->calls);
    out->ncalls = k;
    return c.failed ? -1 : 0;
}

void exact_seen_free(exact_seen *s)
{
    free(s->calls);
    free(s->on_mpi);
    free(s->samples);
    free(s->visits);
    memset(s, 0, sizeof *s);
}
