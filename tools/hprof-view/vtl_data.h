/*
 * vtl_data.h - the timeline member of hprof's profiles
 * (report/merge/timeline_file.h), read for the views (held as the file
 * holds it, vtl_store.h): --timeline
 * (view_timeline.c), the timeline findings of --hotspots (vtl_findings.h)
 * and the HTML report's heat map, all restricted to one MPI_Pcontrol phase
 * with --phase.
 */
#ifndef HPROF_VTL_DATA_H
#define HPROF_VTL_DATA_H

#include "tools/hprof-view/view.h"
#include "tools/hprof-view/vtl_store.h"

/* hprof keeps this many MPI_Pcontrol marks a rank (core/timeline.h). */
#define VTL_RUNTIME_PHASES 1024

/* 1: loaded (restricted to o->phase when set); 0: the file has no
 * timeline; -1: malformed or out of memory; -2: o->phase does not fit
 * (reason in o->err). */
int vtl_load(const cube_profile *p, const view_opts *o, timeline *tl);
void vtl_free(timeline *tl);
/* MPI time / (MPI + computation) of ranks [r0, r1) over buckets [b0, b1);
 * -1 where nothing was measured. The sums over all ranks are read from
 * the totals, over fewer ranks summed rank by rank. */
double vtl_share(const timeline *tl, int r0, int r1, int b0, int b1);
/* Sum of field (TL's "rank" rows: 0 mpi_ns, 1 comp_ns, ...) over ranks and buckets. */
double vtl_sum(const timeline *tl, int r0, int r1, int f, int b0, int b1);
/* Path k's time (VTL_MPI, VTL_COMP or VTL_BOTH) over ranks and buckets, ns. */
double vtl_path_sum(const timeline *tl, int k, int r0, int r1, int f, int b0, int b1);
/* The bucket holding time t (seconds from the start), rounded to the
 * nearest edge and clamped to [0, nb]: marks from a damaged member stay
 * in range. */
int vtl_bucket(const timeline *tl, double t);
/* Bucket range of column c of cols over the shown buckets. */
void vtl_column(const timeline *tl, int c, int cols, int *b0, int *b1);
/* "main/solve/MPI_Allreduce", its last frames when long. */
const char *vtl_path_name(const cube_profile *p, int cnode, char *buf, size_t len);
/* Path k's name, with its call site ("main/compute (phases.c:45)") when
 * another chosen path has the same name. */
const char *vtl_path_label(const cube_profile *p, const timeline *tl, int k, char *buf, size_t len);

#endif
