/*
 * prelearn.h - recipes of the program's own code learned ahead of its
 * samples: the first sample in a function the walks have not met yet
 * would otherwise fall back to libunwind (3-12 us in real applications)
 * while the learner learns it. The learner thread (idle priority) does
 * this once, at the start of sampling, before it serves the queue.
 */
#ifndef HPROF_PRELEARN_H
#define HPROF_PRELEARN_H

/* Learns the rows of every function the main executable's frame index
 * (.eh_frame_hdr) lists, in address order, within a bound of functions and
 * time. HPROF_PRELEARN=0 turns it off. Not from signal handlers. */
void prelearn_program(void);

#endif
