/*
 * run_attrs.h - what was measured, stored as <attr> pairs in the profile:
 * version, command line, date, the run's id, sampling settings, sample totals over all
 * ranks and the histograms of effective sampling intervals (the paper's
 * Figure 3): the sum over ranks, and per rank for the first
 * RUN_ATTRS_MAX_RANK_HISTOGRAMS ranks.
 */
#ifndef HPROF_RUN_ATTRS_H
#define HPROF_RUN_ATTRS_H

#include <mpi.h>

#define RUN_ATTRS_MAX_RANK_HISTOGRAMS 4096

typedef struct run_attrs {
    const char **keys, **values;
    int count, cap;
} run_attrs;

/* Collective over comm at start-up (PMPI only): the ranks take rank 0's
 * run id, a token no other run shares, into every profile they write as
 * hprof::run: hprof-merge joins partial profiles of one run only. */
void run_attrs_agree_run(MPI_Comm comm);
/* Collective over comm, which spans all processes (PMPI only). Rank 0 gets
 * the full set; other ranks a valid, possibly shorter one. */
void run_attrs_collect(run_attrs *a, MPI_Comm comm);
/* This rank's own attrs, without any communication (for fallback files). */
void run_attrs_local(run_attrs *a, int nranks);
void run_attrs_free(run_attrs *a);

#endif
