/*
 * program_agree.h - one program name for the whole job. The call tree's
 * root is named after the program (program_id.h) and must be one region on
 * every rank: readers that take a single root (pyCubexR, so Extra-P) refuse
 * a file with two. An MPMD launch (mpirun ./a : ./b, or one program with
 * different arguments in each part) runs several: the ranks agree on the
 * list of them, "a : b", and on their command lines, "./a 1 : ./b 2".
 */
#ifndef HPROF_PROGRAM_AGREE_H
#define HPROF_PROGRAM_AGREE_H

#include <mpi.h>

/* Collective over comm (the ranks that measure), before their profiles are
 * built. Costs a broadcast of 8 bytes and an allreduce when every rank runs
 * the same command, as in an SPMD job. */
void program_agree(MPI_Comm comm);

#endif
