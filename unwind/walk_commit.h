/*
 * walk_commit.h - a finished walk into the calling context tree, and the
 * return-address patching: each new frame's slot redirected to its thunk
 * where it is proven to hold a return address (thunk_stack.h), so that the
 * next walk stops there.
 */
#ifndef HPROF_WALK_COMMIT_H
#define HPROF_WALK_COMMIT_H

#if defined(__x86_64__)
#include <stdint.h>

#include "core/cct.h"
#include "unwind/frame_walk.h"
#include "unwind/python/py_splice.h"

/* After a walk that reached its end or a thunk: the nodes, the visits, and
 * the thunks for the frames passed. first_patch: the first index whose slot
 * may be redirected (1 for MPI calls: slots[0] is the wrapper's; 2 for
 * samples: slots[1] belongs to the interrupted function); sample: ips[0] is
 * the interrupted instruction, not a return address; patch: 0 leaves the
 * stack as it is (no thunks: HPROF_THUNKS=0, or a foreign walk under way).
 * The node of the whole path, or CCT_NONE (the tree is full). */
uint32_t walk_commit(uw_thread *st, cct *tree, walk *w, const py_path *py, int first_patch, int sample,
                     int patch);

#endif
#endif
