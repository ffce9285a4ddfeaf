/*
 * exact_seen.h - what the threads' call trees show of the functions with
 * patchable entries, for selections that read it (core/select's callers,
 * callees, mpi_path): the calls seen between them and which lie on a call
 * path to an MPI call, and (for HPROF_SELECT=auto) each one's samples and
 * exact visits. Read from every location's tree under the thread
 * registry's lock (hprof_thread_each_tree), not from signal handlers.
 */
#ifndef HPROF_EXACT_SEEN_H
#define HPROF_EXACT_SEEN_H

#include <stdint.h>

typedef struct exact_range { /* the code of function fn: [lo, hi) */
    uint64_t lo, hi;
    int fn;
} exact_range;

typedef struct exact_seen {
    int (*calls)[2]; /* {caller, callee}, each pair once */
    int ncalls;
    unsigned char *on_mpi;  /* [fn]: seen on a call path to an MPI call */
    uint64_t *samples;      /* [fn]: samples that landed in its own code (its exclusive sampled time) */
    uint64_t *visits;       /* [fn]: its exactly measured calls so far, every thread */
    uint64_t total_samples; /* every sample of the trees */
    int ntrees;             /* the trees (locations) read */
} exact_seen;

/* r: n ranges sorted by lo, of nfn functions. 0, or -1 (no memory). */
int exact_seen_collect(const exact_range *r, int n, int nfn, exact_seen *out);
void exact_seen_free(exact_seen *s);

#endif
