/*
 * py_splice.h - Python functions in call paths: a walk's C frames that
 * are activations of CPython's evaluation loop are replaced by the
 * Python frames each one runs (py_runtime.h), outermost first, before the
 * path goes into the tree. The interpreter's other C frames stay in the
 * tree and are folded away when the profile is written
 * (report/profile/local_profile.c); C extensions' frames stay.
 *
 * Which C frame is an activation: with a recipe walk, the one whose stack
 * holds the activation's _PyCFrame (a local of the evaluation loop), so a
 * compiler's split-off part of the loop is found too; with libunwind's
 * walk (no stack pointers), the return addresses into the loop's
 * function, matched in order when there are as many as activations.
 * Anything that does not add up leaves the C frames as they are.
 *
 * A path holds at most PY_PATH_KEYS Python frames: the outermost
 * activations are read first, so a deep path keeps its base (main,
 * <module>) and loses frames in the middle of a long chain, then whole
 * inner activations (which keep their C frames).
 * Allocates nothing, takes no lock; async-signal-safe with safe set.
 */
#ifndef HPROF_PY_SPLICE_H
#define HPROF_PY_SPLICE_H

#include <stdint.h>

#include "core/cct.h"
#include "unwind/python/py_runtime.h"

#define PY_PATH_KEYS PY_KEYS_MAX

typedef struct py_path {
    py_thread *pt;                              /* whose walk (its record of the last path) */
    int nact;                                   /* frames replaced */
    int frame[PY_ACTS_MAX];                     /* their index in the walk, ascending */
    int first[PY_ACTS_MAX], count[PY_ACTS_MAX]; /* their keys in keys[], outermost first */
    int nkeys;
    uint64_t keys[PY_PATH_KEYS];
} py_path;

/* A recipe walk: frames 0..last of n are new; slots[j] is where ips[j]
 * was read (j >= 1), so frame j's stack is [slots[j] + 8, slots[j + 1] + 8)
 * (the last one's ends at stack_hi) and frame 0's starts at sp0. pt: the
 * thread's room (py_runtime.h; NULL: no Python frames). */
void py_path_by_stack(py_path *p, py_thread *pt, uint64_t *const *slots, int n, int last, uint64_t sp0,
                      uint64_t stack_hi, int safe);

/* A whole path from libunwind (ips[0] the interrupted pc when sample). */
void py_path_by_address(py_path *p, py_thread *pt, const uint64_t *ips, int n, int sample, uint64_t sp,
                        uint64_t stack_hi, int safe);

/* tree_path_add (tree_path.h) with the replaced frames' Python keys in
 * place of their C keys: nodes[j] of a replaced frame is its innermost
 * Python frame's node. The caller reserved n + p->nkeys nodes. The
 * thread's last path's Python steps are remembered: where this one takes
 * the same steps from the same nodes (a deep stack sampled again), its
 * nodes are not looked up again. */
uint32_t py_path_add(cct *tree, uint32_t parent, const uint64_t *ips, int from, const py_path *p,
                     uint32_t *nodes);

/* Frame j was replaced. */
int py_path_replaced(const py_path *p, int j);

#endif
