/*
 * location_reduce.h - HPROF_LOCATIONS=reduced (issue 41): a file whose
 * system tree holds a few locations that summarise the ranks instead of
 * one per rank, per call path and metric: the sum over the ranks, their
 * min and max, and the rows of three key ranks (rank 0, the ranks with
 * the least and the most time). A metric whose own kind is a min or max
 * (MINDOUBLE, MAXDOUBLE) reduces as such, its "sum" too; a rank's threads
 * are taken together (summed, or their min or max). The ranks where min
 * and max occur go into their own member (LOCATIONS_MEMBER).
 *
 * The reduction runs over the merge's communicator by PMPI_Reduce with a
 * user-defined operation (MPI's own tree: O(log P) rounds), in chunks of
 * LOC_CHUNK_UNITS rows, so that no rank holds more than a chunk.
 * HPROF_SIMULATE_RANKS=K: real rank r stands for ranks r*K+j, its
 * floating values times (1 + j/(4K)), its integer ones as they are (the
 * contract of group_rows.h), reduced in closed form on each rank.
 */
#ifndef HPROF_LOCATION_REDUCE_H
#define HPROF_LOCATION_REDUCE_H

#include <mpi.h>

#include "report/cube/writer/cube_writer.h"
#include "report/merge/collect.h"

/* HPROF_LOCATIONS=auto reduces a file of more ranks than this: the
 * largest power of two at which every rank's row of a call path (8 bytes
 * a location) is still 128 KB and a Cube view of every rank still opens
 * in seconds. */
#define LOCATIONS_AUTO_RANKS 16384

/* The member: a zlib stream of the header (LOCATIONS_MAGIC, then uint32
 * version 1, nmetrics, nrows, uint64 ranks) and per metric, per row (file
 * cnode id) the int32 ranks of the min and the max (-1: no rank has a
 * value there), all little-endian. Ranks are the numbers the full file
 * gives the processes: their MPI_COMM_WORLD ranks (r*K+j simulated). */
#define LOCATIONS_MEMBER "hprof.locations.z"
#define LOCATIONS_MAGIC "HPROFLOC"

enum location_kind {
    LOC_SUM,
    LOC_MIN,
    LOC_MAX,
    LOC_RANK0,
    LOC_LEAST,
    LOC_MOST,
    LOC_COUNT
};

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
