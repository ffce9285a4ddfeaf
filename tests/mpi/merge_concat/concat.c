/* Records up the aggregators' tree (report/merge/agg_concat.c), without
 * hprof: every (group size, first ranks) case below must give rank 0
 * each rank's record in rank order. Prints "concat ok CASES" or
 * "concat bad: ..." at rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/merge/agg_concat.h"

#define REC 3

static void record_of(int r, int *rec)
{
    rec[0] = r, rec[1] = r * 7 + 1, rec[2] = -r;
}

/* At rank 0: NULL, or why the result is wrong. */
static const char *wrong(const int *all, int want, int *at)
{
    if (!all)
        return "no records";
    for (int r = 0; r < want; r++) {
        int rec[REC];
        record_of(r, rec);
        for (int i = 0; i < REC; i++)
            if (all[r * REC + i] != rec[i]) {
                *at = r;
                return "a record out of place";
            }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, mine[REC], bad = 0, cases = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    record_of(rank, mine);
    int caps[] = { 1, 2, 3, 16 }, firsts[] = { size, size - 3, 1, size + 5 };
    for (int c = 0; c < 4; c++)
        for (int f = 0; f < 4; f++) {
            agg_tree t;
            agg_tree_build(MPI_COMM_WORLD, caps[c], &t);
            int *all = agg_concat_records(&t, mine, sizeof mine, firsts[f]);
            int want = firsts[f] < size ? firsts[f] : size, at = -1;
            const char *why = rank == 0 ? wrong(all, want, &at) : NULL;
            if (why && !bad++)
                printf("concat bad: group size %d, first %d ranks: %s (rank %d)\n", caps[c], firsts[f], why,
                       at);
            cases++;
            free(all);
        }
    if (rank == 0 && !bad)
        printf("concat ok %d\n", cases);
    MPI_Finalize();
    return 0;
}
