/*
 * collect.h - the metric values of every rank to rank 0's writer, through
 * a tree of aggregators (agg_tree.h), in chunks of rows (file order:
 * metric after metric, rows of a metric that hold a value on some rank)
 * of bounded size. Only values other than zero travel from a rank to its
 * aggregator, with their place; each aggregator makes its group's part of
 * each row, encoded and compressed (group_rows.h), joins its children's
 * parts and sends them on; rank 0 only hands each row's parts to the
 * writer (cube_writer_metric_row_pieces), which lays them end to end.
 */
#ifndef HPROF_COLLECT_H
#define HPROF_COLLECT_H

#include <mpi.h>

#include "report/cube/writer/cube_writer.h"
#include "report/profile/local_profile.h"

/* This rank's values, metric by metric (metrics_count(): call it after
 * metrics_set_events), only those whose bits are not all zero, keyed by
 * its own cnode ids. Frees lp->values: their memory is free again before
 * the merge needs its own. Never NULL unless out of memory. */
typedef struct value_columns value_columns;
value_columns *collect_columns(local_profile *lp);
void collect_columns_free(value_columns *vc);

/* For HPROF_LOCATIONS=reduced (location_reduce.h), which reads the
 * columns itself: the cells of this rank by file id, sorted (cells of
 * cnodes not placed dropped; 0 or -1), and metric m's cells. */
int collect_columns_sort(value_columns *vc, const int *ids, int nlocal, int nglobal);
const struct value_cell *collect_column(const value_columns *vc, int m, size_t *n);

typedef struct collect_job {
    MPI_Comm comm;
    int rank;
    cube_writer *w;         /* rank 0: the file, defined; NULL elsewhere */
    int nthreads;           /* this rank's locations */
    int simulate;           /* ranks each rank stands for (HPROF_SIMULATE_RANKS, group_rows.h) */
    int compress;           /* cube_writer_set_compress's: zlib rows wanted */
    value_columns *columns; /* this rank's (collect_columns): sorted into file id order */
    const int *ids;         /* this rank's cnode -> file cnode id (-1: not placed); may be NULL */
    int nlocal;             /* this rank's own cnodes (ids entries) */
    int nglobal;            /* cnodes in the file */
} collect_job;

/* Collective over job->comm. 0, or -1 when something failed (on rank 0:
 * the writer then holds the reason). */
int collect_values(const collect_job *job);

#endif
