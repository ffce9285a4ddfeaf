/*
 * now_where.h - the MPI calls a snapshot found under way (hprof::now,
 * written by lib/ending/live_snapshot.c through lib/ending/comm_peers.h): per thread of
 * a rank, the function, its communicator and its peers as world ranks,
 * for hprof-view --now.
 */
#ifndef HPROF_VIEW_NOW_WHERE_H
#define HPROF_VIEW_NOW_WHERE_H

#include <stddef.h>
#include <stdio.h>

#include "report/cube/reader/cube_reader.h"

#define NOW_WORD 24

/* A peer or a tag as the snapshot said it: a number, "any", "none" (no
 * peer: MPI_PROC_NULL), "local<N>" (a rank of the communicator whose world
 * rank was not known); "" where the call has no such argument. */
typedef struct now_call {
    int rank, thread;
    char fn[64];
    char comm[NOW_WORD]; /* world, self, size<N>, inter<N>, unknown */
    char source[NOW_WORD], dest[NOW_WORD], tag[NOW_WORD], sendtag[NOW_WORD], recvtag[NOW_WORD],
        root[NOW_WORD];
} now_call;

typedef struct now_calls {
    now_call *v;
    int n;
} now_calls;

/* p's hprof::now; an empty list where there is none. 0, or -1 when out of
 * memory. */
int now_calls_read(const cube_profile *p, now_calls *out);
void now_calls_free(now_calls *c);

/* The call of thread `thread` of rank `rank`, or NULL. */
const now_call *now_calls_find(const now_calls *c, int rank, int thread);

/* "source 2, tag 7" (and the communicator where it is not
 * MPI_COMM_WORLD) into buf; "" for NULL. */
void now_call_text(const now_call *c, char *buf, size_t len);

/* , "mpi": {"function": "MPI_Recv", "comm": "world", "source": 2, ...}
 * (numbers where the word is one); nothing for NULL. */
void now_call_json(const now_call *c, FILE *out);

/* The world rank a peer word names, or -1 (any, none, local<N>, ""). */
int now_peer_rank(const char *word);

/* "0-2, 5" of the sorted, distinct ranks v[n] into buf. */
void now_ranks_text(const int *v, int n, char *buf, size_t len);

#endif
