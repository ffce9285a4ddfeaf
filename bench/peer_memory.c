/*
 * peer_memory.c - what rank 0's memory grows by when every rank sends it
 * a message, without hprof (issue 41: how much of rank 0's memory growth
 * in the merge is the MPI library's state for each peer that talks to
 * it). Mode "none": a barrier only; "p2p": every rank sends rank 0 one
 * int (MPI_Send / MPI_Recv from each, as a gather straight to the root);
 * "tree": the same through groups of 16 (each group's first rank takes
 * its members' ints, rank 0 the groups' firsts'). Prints rank 0's peak
 * resident memory (VmHWM) before and after, in KB:
 * "peer_memory MODE: P ranks, hwm KB before, KB after".
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "peak_memory.h"

#define GROUP 16

/* Every rank in [first, last) sends root one int; root takes them. */
static void to_root(int rank, int root, int first, int last)
{
    int v = rank;
    if (rank != root) {
        MPI_Send(&v, 1, MPI_INT, root, 7, MPI_COMM_WORLD);
        return;
    }
    for (int r = first; r < last; r++)
        if (r != root)
            MPI_Recv(&v, 1, MPI_INT, r, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* The groups' first ranks send rank 0 one int each. */
static void leaders_to_root(int rank, int size)
{
    int v = rank;
    if (rank != 0) {
        MPI_Send(&v, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
        return;
    }
    for (int r = GROUP; r < size; r += GROUP)
        MPI_Recv(&v, 1, MPI_INT, r, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    int rank, size;
    const char *mode = argc > 1 ? argv[1] : "none";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    long before = peak_kb();
    if (strcmp(mode, "p2p") == 0) {
        to_root(rank, 0, 0, size);
    } else if (strcmp(mode, "tree") == 0) {
        int leader = rank / GROUP * GROUP;
        to_root(rank, leader, leader, leader + GROUP < size ? leader + GROUP : size);
        if (rank == leader)
            leaders_to_root(rank, size);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("peer_memory %s: %d ranks, hwm %ld KB before, %ld KB after\n", mode, size, before, peak_kb());
    MPI_Finalize();
    return 0;
}
