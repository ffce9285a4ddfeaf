/*
 * vtl_store.h - the time line as the member holds it: each distinct series
 * once, a rank's row and path series an index to it, and the sums over all
 * ranks taken once from (series x ranks naming it). Ranks that behaved
 * alike (the simulated ones, idle paths) cost an index each, so 100,000
 * ranks of a few shapes take a few MB. Filled by the member's readers
 * (vtl_unpack.h for the packed member, vtl_text.h for the old text one),
 * read by vtl_data.h.
 */
#ifndef HPROF_VTL_STORE_H
#define HPROF_VTL_STORE_H

#include <stddef.h>
#include <stdint.h>

#define VTL_FIELDS 5 /* mpi_ns comp_ns visits bytes_sent bytes_received */
#define VTL_MAX_PATHS 1024
#define VTL_MAX_PHASES 4096 /* marks kept over all ranks */

enum {
    VTL_MPI,
    VTL_COMP,
    VTL_BOTH
};

typedef struct timeline {
    double width; /* bucket width in seconds */
    int nb, nranks;
    double *vals;        /* [series][bucket]; series 0 is all zeros */
    size_t nseries, cap; /* series held, room for */
    uint32_t *row;       /* [rank][field]: the series of the rank's field */
    uint32_t *prow;      /* [path][rank][VTL_MPI/VTL_COMP]: its series, ns */
    double *total;       /* [field][bucket]: over all ranks */
    double *ptotal;      /* [path][VTL_MPI/VTL_COMP][bucket]: over all ranks */
    int last_used;       /* buckets up to the last with MPI or computation */
    struct {
        int rank, level;
        double t;
    } * phase;
    int nphases;
    double phases_dropped; /* marks the runtime could not keep (phases_dropped lines) */
    int dropped_ranks;     /* ranks that lost some */
    int npaths;            /* the heaviest call paths over time */
    int *path_cnode;       /* [path]: the file's cnode id, then its index in the profile (-1: unknown) */
    double spilled;        /* ns the runtime could give no path */
    int b0, b1;            /* the buckets the views show: [b0, b1) */
    int phased;            /* restricted to one phase (--phase) */
    int level;             /* the MPI_Pcontrol level of --phase */
} timeline;

/* Room for nranks rows of nb buckets, all naming the zero series; width,
 * nb and nranks set. 0, or -1 when out of memory. */
int vtl_store_init(timeline *tl, double width, int nb, int nranks);
/* Room for k path series a rank, all zeros; path ids -1. 0 or -1. */
int vtl_store_paths(timeline *tl, int k);
/* A new series, zeroed, numbered *id: its nb values, valid until the next
 * call; NULL when out of memory. */
double *vtl_store_series(timeline *tl, uint32_t *id);
/* An MPI_Pcontrol(level) mark of rank r at ns; past VTL_MAX_PHASES, or a
 * level no int holds, it is not kept. */
void vtl_store_phase(timeline *tl, int r, double ns, long long level);
/* The sums over all ranks and the buckets used, once all is read. 0 or -1. */
int vtl_store_finish(timeline *tl);
void vtl_store_free(timeline *tl);

/* Rank r's field f (VTL_MPI ... VTL_FIELDS - 1), nb values. */
const double *vtl_rank_series(const timeline *tl, int r, int f);
/* Path k's VTL_MPI or VTL_COMP time on rank r, nb values. */
const double *vtl_path_series(const timeline *tl, int k, int r, int f);

#endif
