/*
 * now_waits.h - who waits for whom in a snapshot (hprof-view --now): each
 * rank whose threads all wait in MPI calls whose peers are plain (a
 * point-to-point call with its peer's world rank, a collective on
 * MPI_COMM_WORLD: it waits for every rank not in the same collective) is
 * a waiter. Ranks that wait only for waiters, round and round, form a
 * wait-for cycle: none of them goes on unless one leaves its call, a
 * deadlock if it lasts. Where there is none, one rank every waiter waits
 * for, directly or through others, is the rank the job waits for.
 */
#ifndef HPROF_VIEW_NOW_WAITS_H
#define HPROF_VIEW_NOW_WAITS_H

#include <stdio.h>

#include "tools/hprof-view/now_where.h"

/* One location of the snapshot: its rank, its thread's call under way (a
 * now_calls entry, NULL where it computes or its call has no peers on
 * record) and the seconds it has been there. */
typedef struct now_loc {
    int rank;
    const now_call *call;
    double seconds;
} now_loc;

typedef struct now_waits {
    int nranks;
    char *in_cycle; /* per rank: 1 in the wait-for cycle */
    int ncycle;
    int awaited; /* the rank all waiters wait for, or -1 */
    int nwaiters;
    char **says; /* per rank in the cycle, or per waiter: "in MPI_Recv waits for rank 2" */
} now_waits;

/* 0, or -1 when out of memory. nranks: the job's ranks (0..nranks-1). */
int now_waits_find(const now_loc *locs, int nlocs, int nranks, now_waits *w);
void now_waits_free(now_waits *w);

/* The lines of what was found (nothing where nothing was). */
void now_waits_print(const now_waits *w, FILE *out);

#endif
