/*
 * merged_attrs.h - the <attr> pairs of hprof-merge's profile: the lowest
 * rank's (what was measured, the command, hprof's version), the run's
 * sample counts summed over the inputs as MPI_Finalize's merge sums them,
 * hprof::partial saying the file was merged from partial profiles and
 * which of the job's ranks it lacks, and the snapshots' hprof::now, where
 * each rank's threads were, joined. The inputs are taken one at a time
 * (merged_attrs_add copies what it needs), so that none has to stay open.
 */
#ifndef HPROF_MERGED_ATTRS_H
#define HPROF_MERGED_ATTRS_H

#include "report/cube/reader/cube_reader.h"

typedef struct merged_attrs {
    const char **keys, **values; /* n pairs, valid until merged_attrs_free */
    char **owned;
    int n;
    struct attrs_seen *seen; /* what merged_attrs_add gathered */
} merged_attrs;

/* Takes one input's attributes (in the order of the inputs). 0, or -1
 * when out of memory. */
int merged_attrs_add(merged_attrs *a, const cube_profile *p);

/* ranks: the nranks ranks merged, in order. The ranks of the job (the
 * lowest rank's hprof::ranks) that none of the inputs holds are named in
 * hprof::partial and in hprof::missing_ranks ("1, 4-6"). 0, or -1 when out
 * of memory. */
int merged_attrs_make(merged_attrs *a, const int *ranks, int nranks);
void merged_attrs_free(merged_attrs *a);

#endif
