/*
 * defs_reduce.h - unifies the definitions of all ranks at rank 0 by a
 * binomial tree reduction over a private communicator (O(log P) rounds),
 * each rank absorbing its children's definitions straight from the
 * received bytes; then the file's cnode ids travel back down the same tree
 * as plain int arrays, translated at each rank through the maps it made
 * while absorbing. No rank but rank 0 ever holds the unified definitions.
 */
#ifndef HPROF_DEFS_REDUCE_H
#define HPROF_DEFS_REDUCE_H

#include <mpi.h>

#include "report/profile/defs.h"

/* Collective over comm. Adds the other ranks' definitions to rank 0's d
 * (elsewhere d gains those of the rank's subtree; ids already in d keep
 * their values). Returns, per cnode of d, its id in the file: its preorder
 * position in rank 0's unified tree, -1 where it could not be placed
 * (malloc'd; NULL if not even that). *nglobal: the file's cnodes. */
int *defs_reduce(MPI_Comm comm, defs *d, int *nglobal);

#endif
