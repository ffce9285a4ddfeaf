/*
 * offline_merge.h - merges profiles of disjoint sets of ranks (the
 * per-rank fallback profiles a killed job left: report/profile/fallback.h)
 * into one CUBE4 file, serially, without MPI. Definitions are unified as
 * MPI_Finalize's merge unifies them (report/profile/defs.h: regions by
 * name, module, file and kind; cnodes by parent, region and call site, or
 * with call sites merged when the run said hprof::callsites=merge); every
 * rank's locations keep their values, so no value of two ranks is ever
 * combined (unless opts->locations asks for the reduced file:
 * reduced_fold.h). The metrics are the union of the inputs', in their order
 * (a rank's PAPI events, exact_time, the polls' two where some rank has
 * them; 0 on ranks without them). The file is written with
 * report/cube/writer, so it appears complete under its name or not at all.
 * One input is open at a time (read once for its definitions, once for a
 * group of metrics' values): memory and open files do not grow with the
 * number of inputs, only with the merged definitions and ranks.
 */
#ifndef HPROF_OFFLINE_MERGE_H
#define HPROF_OFFLINE_MERGE_H

#include <stddef.h>

typedef struct offline_merge_opts {
    const char *output; /* the merged file */
    int overwrite_ok;   /* 1: an existing output may be replaced */
    int compress;       /* 1: ZCUBEX.DATA rows where they pay */
    int locations;      /* enum hprof_locations (core/config.h): every rank's, or reduced (reduced_fold.h) */
} offline_merge_opts;

/* 0 with a one-line summary in msg, or -1 with a one-line reason in msg
 * (nothing written then). */
int offline_merge(const char *const *inputs, int ninputs, const offline_merge_opts *opts, char *msg,
                  size_t msglen);

#endif
