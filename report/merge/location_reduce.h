/*
 * location_reduce.h - HPROF_LOCATIONS=reduced (issue 41) at MPI_Finalize:
 * the file's six locations of report/profile/locations_file.h, reduced
 * over the merge's communicator by PMPI_Reduce with a user-defined
 * operation (MPI's own tree: O(log P) rounds), in chunks of
 * LOCATIONS_CHUNK rows, so that no rank holds more than a chunk.
 * HPROF_SIMULATE_RANKS=K: real rank r stands for ranks r*K+j, its
 * floating values times (1 + j/(4K)), its integer ones as they are (the
 * contract of group_rows.h), reduced in closed form on each rank.
 */
#ifndef HPROF_LOCATION_REDUCE_H
#define HPROF_LOCATION_REDUCE_H

#include <mpi.h>

#include "report/cube/writer/cube_writer.h"
#include "report/merge/collect.h"
#include "report/profile/locations_file.h"

typedef struct reduced_file {
    long long nranks;          /* of the file: P x K */
    long long key[3];          /* rank 0, least time, most time: the communicator's ranks x K */
    long long label[3];        /* the same as the full file numbers its processes */
    long long first;           /* this rank's own: its (first) process number in the file */
    char names[LOC_COUNT][64]; /* the processes' names */
    cube_process_def procs[LOC_COUNT];
} reduced_file;

/* Whether the file of nranks (P x K) is reduced: HPROF_LOCATIONS, same on
 * every rank. */
int location_reduce_wanted(long long nranks);

/* Collective: this rank's values (collect_columns, not yet sorted) find the
 * key ranks; rf gets the processes (node 0), named by the ranks the full
 * file would give them (process_rank: this rank's, merge_info's). */
void location_reduce_plan(MPI_Comm comm, int simulate, int process_rank, const value_columns *vc,
                          reduced_file *rf);

/* Collective: the columns sorted by file id (collect_columns_sort), the
 * rows reduced to rank 0, which writes them and the member into w. 0, or
 * -1 when something failed (on rank 0 the writer then holds the reason). */
int location_reduce_write(MPI_Comm comm, int simulate, cube_writer *w, const value_columns *vc, int nglobal,
                          const reduced_file *rf);

#endif
