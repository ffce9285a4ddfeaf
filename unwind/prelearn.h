/*
 * prelearn.h - recipes of the program's own code learned ahead of its
 * samples: the first sample in a function the walks have not met yet
 * would otherwise fall back to libunwind (3-12 us in real applications)
 * while the learner learns it. The learner thread (idle priority) does
 * this once, at the start of sampling, before it serves the queue.
 *
 * An iterator the learner drives, one function at a time, so that it
 * serves what samples missed between two:
 *
 *     prelearn p;
 *     if (prelearn_begin(&p)) {
 *         while (prelearn_next(&p))
 *             ...;
 *         prelearn_end(&p);
 *     }
 */
#ifndef HPROF_PRELEARN_H
#define HPROF_PRELEARN_H

#include <stdint.h>

typedef struct prelearn {
    const int32_t *pairs; /* the frame index: (start, fde) relative to hdr */
    uint64_t hdr;
    uint64_t count;  /* functions it lists */
    uint64_t base;   /* the executable's load address */
    void *dwfl;      /* recipe_prelearn_begin's session */
    uint64_t n;      /* functions to learn: count within the bound */
    uint64_t i;      /* functions learned so far */
    uint64_t blocks; /* recipes they gave */
    uint64_t t0;     /* the learner's CPU time at the start */
} prelearn;

/* Finds the main executable's frame index (.eh_frame_hdr): 1 when there
 * are functions to learn (then prelearn_end must follow), 0 when not or
 * HPROF_PRELEARN=0. Not from signal handlers. */
int prelearn_begin(prelearn *p);

/* Learns the rows of the next function, in address order: 1, or 0 when
 * done (every function, the bound of functions or CPU time reached, or
 * one that cannot be read). */
int prelearn_next(prelearn *p);

/* Frees what begin took and says (HPROF_VERBOSE=1) how much was learned. */
void prelearn_end(prelearn *p);

#endif
