/*
 * py_splice.c - see py_splice.h.
 */
#include "unwind/python/py_splice.h"

#include "unwind/tree_path.h"

/* The activations matched to walk frames: frame js[k] is activation k
 * (innermost first). Their Python frames go to p->keys, the outermost
 * activation's first, so that room runs out at the inner end; one whose
 * chain does not check out (or finds no room) keeps its C frame. */
static void take(py_path *p, py_thread *pt, const int *js, const uint64_t *frames, int n, int safe)
{
    int at[PY_ACTS_MAX], count[PY_ACTS_MAX];
    py_runtime_walk_start(pt, safe, frames[0]);
    for (int k = n - 1; k >= 0; k--) {
        at[k] = p->nkeys;
        count[k] = py_runtime_chain(pt, frames[k], PY_PATH_KEYS - p->nkeys, safe);
        if (count[k] > 0)
            p->nkeys += count[k];
    }
    py_runtime_keys(pt, p->keys, safe);
    for (int k = 0; k < n; k++) {
        for (int i = 0; i < count[k]; i++)
            if (!p->keys[at[k] + i])
                count[k] = 0; /* a code object that does not check out */
        if (count[k] <= 0)
            continue;
        p->frame[p->nact] = js[k];
        p->first[p->nact] = at[k];
        p->count[p->nact++] = count[k];
    }
}

void py_path_by_stack(py_path *p, py_thread *pt, uint64_t *const *slots, int n, int last, uint64_t sp0,
                      uint64_t stack_hi, int safe)
{
    p->pt = pt;
    p->nact = p->nkeys = 0;
    py_acts a;
    if (!pt || last < 0 || py_runtime_activations(&a, sp0, stack_hi, safe) == 0)
        return;
    int k = 0, js[PY_ACTS_MAX];
    for (int j = 0; j <= last && k < a.n; j++) {
        uint64_t lo = j ? (uint64_t)(uintptr_t)slots[j] + 8 : sp0;
        uint64_t hi = j + 1 < n ? (uint64_t)(uintptr_t)slots[j + 1] + 8 : stack_hi;
        if (a.cframe[k] < lo)
            return; /* a CFrame in no frame of the walk */
        if (a.cframe[k] >= hi)
            continue;
        if (k + 1 < a.n && a.cframe[k + 1] < hi)
            return; /* two in one frame */
        js[k++] = j;
    }
    if (k > 0)
        take(p, pt, js, a.frame, k, safe);
}

void py_path_by_address(py_path *p, py_thread *pt, const uint64_t *ips, int n, int sample, uint64_t sp,
                        uint64_t stack_hi, int safe)
{
    p->pt = pt;
    p->nact = p->nkeys = 0;
    py_acts a;
    if (!pt || py_runtime_activations(&a, sp, stack_hi, safe) == 0)
        return;
    int evals = 0, js[PY_ACTS_MAX];
    for (int j = 0; j < n; j++)
        if (py_runtime_in_eval(sample && j == 0 ? ips[j] : ips[j] - 1)) {
            if (evals < PY_ACTS_MAX)
                js[evals] = j;
            evals++;
        }
    if (evals != a.n)
        return; /* a frame in the loop's cold part, or an activation starting */
    take(p, pt, js, a.frame, a.n, safe);
}

/* The child of node by key: the one this step reached last time when it
 * started from the same node with the same key, else the tree's. */
static uint32_t step(cct *tree, uint32_t node, uint64_t key, py_step *memo, int q)
{
    if (!memo || q >= PY_PATH_KEYS)
        return cct_child(tree, node, key);
    py_step *m = &memo[q];
    if (m->before == node && m->key == key && m->after != CCT_NONE)
        return m->after;
    uint32_t child = cct_child(tree, node, key);
    *m = (py_step){ key, node, child };
    return child;
}

uint32_t py_path_add(cct *tree, uint32_t parent, const uint64_t *ips, int from, const py_path *p,
                     uint32_t *nodes)
{
    if (p->nact == 0)
        return tree_path_add(tree, parent, ips, from, nodes);
    uint32_t node = parent;
    py_step *memo = py_thread_steps(p->pt, tree);
    int q = 0;           /* Python steps taken */
    int r = p->nact - 1; /* replaced frames, the outermost first */
    while (r >= 0 && p->frame[r] > from)
        r--;
    for (int j = from; j >= 0 && node != CCT_NONE; j--) {
        if (r >= 0 && p->frame[r] == j) {
            for (int i = 0; i < p->count[r] && node != CCT_NONE; i++, q++)
                node = step(tree, node, p->keys[p->first[r] + i], memo, q);
            r--;
        } else {
            node = cct_child(tree, node, ips[j]);
        }
        if (nodes)
            nodes[j] = node;
    }
    return node;
}

int py_path_replaced(const py_path *p, int j)
{
    for (int i = 0; i < p->nact; i++)
        if (p->frame[i] == j)
            return 1;
    return 0;
}
