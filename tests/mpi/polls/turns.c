/*
 * turns.c - polls that take turns with another call from one frame, as
 * progress loops do: MPI_Barrier(MPI_COMM_SELF), MPI_Test on a receive
 * that never completes, MPI_Iprobe finding nothing, ROUNDS times (argv[1],
 * default 20000). Each poll opens a polling run that the next barrier ends
 * (lib/polls/poll_rules.h: poll_rules_ended). Each rank writes its
 * expectations (check_csv.py) to turns.expect.RANK.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static __attribute__((noinline)) void turns(long rounds)
{
    MPI_Request r;
    int buf, flag = 0;
    MPI_Irecv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 4711, MPI_COMM_SELF, &r);
    for (long i = 0; i < rounds; i++) {
        MPI_Barrier(MPI_COMM_SELF);
        MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        MPI_Iprobe(MPI_ANY_SOURCE, 4712, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
    }
    MPI_Cancel(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 20000;
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    turns(rounds);
    char name[64];
    snprintf(name, sizeof name, "turns.expect.%d", rank);
    FILE *f = fopen(name, "w");
    if (f) {
        static const char *const calls[] = { "MPI_Barrier", "MPI_Test", "MPI_Iprobe" };
        for (int k = 0; k < 3; k++)
            fprintf(f, "turns\tglob:*;turns;%s\t%d\tvisits\t==\t%ld\n", calls[k], rank, rounds);
        for (int k = 1; k < 3; k++)
            fprintf(f, "turns_split\tglob:*;turns;%s\t%d\tpolls_unsuccessful\t==\t%ld\n", calls[k], rank,
                    rounds);
        fclose(f);
    }
    MPI_Finalize();
    return 0;
}
