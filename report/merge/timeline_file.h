/*
 * timeline_file.h - the ranks' time histograms (core/timeline.h) merged into
 * one archive member, hprof.timeline, beside the CUBE data. Cube readers
 * ignore members they do not know. The member is text:
 *
 *   hprof-timeline 1
 *   width_ns W              bucket width (all ranks folded to the widest)
 *   buckets N
 *   ranks P
 *   fields mpi_ns comp_ns visits bytes_sent bytes_received
 *   rank R FIELD v0 v1 ... v(N-1)     one line per rank and field
 *   offset R NS             rank R started its measurement NS ns after rank 0
 *                           (< 0: before); its buckets are moved by that
 *                           much, to the nearest bucket
 *   phase R T LEVEL         MPI_Pcontrol(LEVEL) on rank R at T ns
 *   phases_dropped R N      rank R's N marks past the first TIMELINE_MAX_PHASES,
 *                           not kept (only ranks with N > 0; rank 0 also says
 *                           so in one line)
 *
 * and, with the heaviest call paths over time (HPROF_TIME_PATHS,
 * path_series.h), at the same width and number of buckets:
 *
 *   paths K                 K paths, numbered 0 (the heaviest) to K-1
 *   path P CNODE            path P is the cnode with that id in anchor.xml
 *   path_series P R FIELD v0 v1 ... v(N-1)
 *                           inclusive time of path P on rank R per bucket
 *                           in ns; FIELD mpi_ns or comp_ns; a run of N
 *                           zero buckets is written 0*N
 *   paths_spilled_ns S      time the logs could give no path (full logs;
 *                           0 normally): the series miss that much
 *
 * Times count from rank 0's MPI_Init entry on every rank: at finalize a
 * barrier gives all ranks a common moment, and each rank's own time since
 * its start, against rank 0's, places its start (the offset lines); only
 * each rank's own clock is read, so hosts' clocks need not agree. Readers
 * skip lines they do not know.
 */
#ifndef HPROF_TIMELINE_FILE_H
#define HPROF_TIMELINE_FILE_H

#include <mpi.h>
#include <stddef.h>

#include "report/merge/path_series.h"
#include "core/timeline.h"

#define TIMELINE_MEMBER "hprof.timeline"

/* Collective over comm. `mine` is this rank's histogram (its threads
 * summed; nbuckets 0: none); paths (k 0: none) the chosen paths. Returns the member's text on rank 0 (malloc'd,
 * *len set), NULL on the other ranks, when no rank has a histogram, or
 * when out of memory. */
char *timeline_file_text(MPI_Comm comm, const hprof_timeline *mine, const timeline_phase_mark *phases,
                         int nphases, unsigned long long phases_dropped, const timeline_paths *paths,
                         size_t *len);

#endif
