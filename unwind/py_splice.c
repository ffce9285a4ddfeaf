/*
 * py_splice.c - see py_splice.h.
 */
#include "py_splice.h"

#include "tree_path.h"

/* Frame j is activation k: its Python frames go to p->keys, outermost
 * first. A chain that does not check out leaves the frame as it is. */
static void take(py_path *p, int j, uint64_t frame, int safe)
{
    uint64_t *k = p->keys + p->nkeys; /* read innermost first, then turned round */
    int c = py_runtime_frames(frame, k, PY_PATH_KEYS - p->nkeys, safe);
    if (c <= 0)
        return;
    for (int lo = 0, hi = c - 1; lo < hi; lo++, hi--) {
        uint64_t t = k[lo];
        k[lo] = k[hi];
        k[hi] = t;
    }
    p->frame[p->nact] = j;
    p->first[p->nact] = p->nkeys;
    p->count[p->nact++] = c;
    p->nkeys += c;
}

void py_path_by_stack(py_path *p, uint64_t *const *slots, int n, int last, uint64_t sp0, uint64_t stack_hi,
                      int safe)
{
    p->nact = p->nkeys = 0;
    py_acts a;
    if (last < 0 || py_runtime_activations(&a, sp0, stack_hi, safe) == 0)
        return;
    int k = 0;
    for (int j = 0; j <= last && k < a.n; j++) {
        uint64_t lo = j ? (uint64_t)(uintptr_t)slots[j] + 8 : sp0;
        uint64_t hi = j + 1 < n ? (uint64_t)(uintptr_t)slots[j + 1] + 8 : stack_hi;
        if (a.cframe[k] < lo)
            goto inconsistent; /* a CFrame in no frame of the walk */
        if (a.cframe[k] >= hi)
            continue;
        if (k + 1 < a.n && a.cframe[k + 1] < hi)
            goto inconsistent; /* two in one frame */
        take(p, j, a.frame[k++], safe);
    }
    return;
inconsistent:
    p->nact = p->nkeys = 0;
}

void py_path_by_address(py_path *p, const uint64_t *ips, int n, int sample, uint64_t sp, uint64_t stack_hi,
                        int safe)
{
    p->nact = p->nkeys = 0;
    py_acts a;
    if (py_runtime_activations(&a, sp, stack_hi, safe) == 0)
        return;
    int evals = 0;
    for (int j = 0; j < n; j++)
        evals += py_runtime_in_eval(sample && j == 0 ? ips[j] : ips[j] - 1);
    if (evals != a.n)
        return; /* a frame in the loop's cold part, or an activation starting */
    for (int j = 0, k = 0; j < n; j++)
        if (py_runtime_in_eval(sample && j == 0 ? ips[j] : ips[j] - 1))
            take(p, j, a.frame[k++], safe);
}

uint32_t py_path_add(cct *tree, uint32_t parent, const uint64_t *ips, int from, const py_path *p,
                     uint32_t *nodes)
{
    if (p->nact == 0)
        return tree_path_add(tree, parent, ips, from, nodes);
    uint32_t node = parent;
    int r = p->nact - 1; /* replaced frames, the outermost first */
    while (r >= 0 && p->frame[r] > from)
        r--;
    for (int j = from; j >= 0 && node != CCT_NONE; j--) {
        if (r >= 0 && p->frame[r] == j) {
            for (int i = 0; i < p->count[r] && node != CCT_NONE; i++)
                node = cct_child(tree, node, p->keys[p->first[r] + i]);
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
