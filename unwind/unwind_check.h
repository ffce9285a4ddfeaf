/*
 * unwind_check.h - the unwinder's self-check (HPROFTEST_UNWIND_CHECK=1, a
 * test knob): every path the fast walk builds is compared with libunwind's
 * walk of the same stack, and at exit one line per process gives the
 * counts (tests/mpi/unwind_equivalence.sh reads it). Mismatches print
 * (the first 5) with write(2): callable from the signal handler. Nothing
 * here runs unless the knob is set.
 */
#ifndef HPROF_UNWIND_CHECK_H
#define HPROF_UNWIND_CHECK_H

#include <stdint.h>

#include "core/cct.h"

/* 1 when HPROFTEST_UNWIND_CHECK=1 (reads the environment: not from a
 * signal handler). */
int unwind_check_wanted(void);

enum unwind_check_outcome {
    UNWIND_CHECK_FAST,
    UNWIND_CHECK_FALLBACK,
    UNWIND_CHECK_FAILED
};

/* One walk (an MPI call's, or a sample's when sample) and how it went. */
void unwind_check_count(int sample, enum unwind_check_outcome outcome);

/* The path of node (innermost first; a sample's first key is 1 past its
 * pc) against ref[0..nref-1], libunwind's. */
void unwind_check_path(const cct *tree, uint32_t node, const uint64_t *ref, int nref, int sample);

#endif
