/*
 * prelearn.h - recipes of the program's own code learned ahead of its
 * samples: the first sample in a function the walks have not met yet
 * would otherwise fall back to libunwind (3-12 us in real applications)
 * while the learner learns it. Once, at the start of sampling.
 *
 * An iterator driven by two threads (learner.c): the prelearner (idle
 * priority) reads one function's rows at a time; the learner (the
 * program's priority) publishes them, between the keys samples missed.
 * The learning lock is never held at idle priority: MPI calls wait for it.
 *
 *     prelearn p;                          the prelearner:
 *     if (prelearn_begin(&p)) {
 *         while (prelearn_next(&p))
 *             prelearn_publish(&p);        by the learner, while it waits
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
    uint64_t t0;     /* the prelearner's CPU time at the start */
} prelearn;

/* Finds the main executable's frame index (.eh_frame_hdr): 1 when there
 * are functions to learn (then prelearn_end must follow), 0 when not or
 * HPROF_PRELEARN=0. Not from signal handlers. */
int prelearn_begin(prelearn *p);

/* Reads the rows of the next function, in address order: 1, or 0 when
 * done (every function, the bound of functions or of the reader's CPU
 * time reached, one that cannot be read, or the table's share full). */
int prelearn_next(prelearn *p);

/* Publishes what prelearn_next read (on another thread, while the reader
 * waits for it to return). */
void prelearn_publish(prelearn *p);

/* Frees what begin took and says (HPROF_VERBOSE=1) how much was learned. */
void prelearn_end(prelearn *p);

#endif
