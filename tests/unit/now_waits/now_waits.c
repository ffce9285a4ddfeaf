/*
 * now_waits.c - hprof-view --now's wait-for analysis on snapshots made by
 * hand (tests/unit/now_waits.sh): hprof::now as lib/ending/comm_peers.c writes it,
 * parsed by now_where.c, then the cycle or the awaited rank of now_waits.c.
 * Prints one line per case: "<case> ok" or "<case> fail: why".
 */
#include <stdio.h>
#include <string.h>

#include "tools/hprof-view/now_waits.h"

static const char *now_attr;

/* The two functions of the reader and the viewer now_where.c calls. */
const char *cube_attr_get(const cube_profile *p, const char *key)
{
    (void)p;
    return strcmp(key, "hprof::now") == 0 ? now_attr : NULL;
}

void view_print_json_string(FILE *out, const char *s)
{
    fprintf(out, "\"%s\"", s);
}

/* Case: NRANKS ranks, one thread each; `now` the snapshot's hprof::now;
 * computing[r] 1 where rank r computes (no call). Expects the cycle's
 * ranks (a 0/1 string) and the awaited rank, and says[] of rank 0 or of
 * the first rank that says something, when want_says is given. */
static void check(const char *name, int nranks, const char *now, const char *want_cycle, int want_awaited,
                  const char *want_says)
{
    now_attr = now;
    now_calls calls;
    now_loc locs[64];
    now_waits w;
    if (now_calls_read(NULL, &calls) != 0) {
        printf("%s fail: out of memory\n", name);
        return;
    }
    for (int r = 0; r < nranks; r++)
        locs[r] = (now_loc){ r, now_calls_find(&calls, r, 0), 1.0 };
    if (now_waits_find(locs, nranks, nranks, &w) != 0) {
        printf("%s fail: out of memory\n", name);
        now_calls_free(&calls);
        return;
    }
    char cycle[65];
    for (int r = 0; r < nranks; r++)
        cycle[r] = w.in_cycle[r] ? '1' : '0';
    cycle[nranks] = '\0';
    const char *says = NULL;
    for (int r = 0; r < nranks && !says; r++)
        says = w.says[r];
    if (strcmp(cycle, want_cycle) != 0 || w.awaited != want_awaited)
        printf("%s fail: cycle %s awaited %d, want %s and %d\n", name, cycle, w.awaited, want_cycle,
               want_awaited);
    else if (want_says && (!says || strcmp(says, want_says) != 0))
        printf("%s fail: says '%s', want '%s'\n", name, says ? says : "(nothing)", want_says);
    else
        printf("%s ok\n", name);
    now_waits_free(&w);
    now_calls_free(&calls);
}

int main(void)
{
    const char *barrier = "0.0 fn=MPI_Barrier comm=world; 1.0 fn=MPI_Barrier comm=world; "
                          "2.0 fn=MPI_Barrier comm=world; ";
    char hung[512], local[512], any[512];
    snprintf(hung, sizeof hung, "%s3.0 fn=MPI_Recv comm=size4 source=2 tag=7; ", barrier);
    snprintf(local, sizeof local, "%s3.0 fn=MPI_Recv comm=unknown source=local1 tag=7; ", barrier);
    snprintf(any, sizeof any, "%s3.0 fn=MPI_Recv comm=world source=any tag=any; ", barrier);
    check("hung", 4, hung, "1111", -1, "in MPI_Barrier waits for rank 3");
    check("awaited_computing", 4, barrier, "0000", 3, "in MPI_Barrier waits for rank 3");
    check("ring", 4,
          "0.0 fn=MPI_Recv comm=world source=1 tag=0; 1.0 fn=MPI_Recv comm=world source=2 tag=0; "
          "2.0 fn=MPI_Recv comm=world source=3 tag=0; 3.0 fn=MPI_Recv comm=world source=0 tag=0",
          "1111", -1, "in MPI_Recv waits for rank 1");
    check("chain", 4,
          "0.0 fn=MPI_Recv comm=world source=1 tag=0; 1.0 fn=MPI_Send comm=world dest=2 tag=0; "
          "2.0 fn=MPI_Recv comm=world source=3 tag=0",
          "0000", 3, "in MPI_Recv waits for rank 1");
    check("two_computing", 4, "0.0 fn=MPI_Barrier comm=world; 1.0 fn=MPI_Barrier comm=world", "0000", -1,
          NULL);
    check("unknown_peer", 4, local, "0000", 3, NULL);
    check("any_source", 4, any, "0000", 3, NULL);
    check("sendrecv_proc_null", 3,
          "0.0 fn=MPI_Sendrecv comm=world source=none dest=1 sendtag=1 recvtag=2; "
          "1.0 fn=MPI_Sendrecv comm=world source=0 dest=none sendtag=1 recvtag=2",
          "110", -1, "in MPI_Sendrecv waits for rank 1");
    /* a split world: ranks 0-1 in one barrier, ranks 2-3 in another: each waits for the other pair */
    check("two_collectives", 4,
          "0.0 fn=MPI_Barrier comm=world; 1.0 fn=MPI_Barrier comm=world; 2.0 fn=MPI_Allreduce comm=world; "
          "3.0 fn=MPI_Allreduce comm=world",
          "1111", -1, "in MPI_Barrier waits for ranks 2-3");
    return 0;
}
