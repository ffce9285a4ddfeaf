/*
 * timeline_file.h - the ranks' time histograms (core/timeline.h) merged into
 * one archive member, hprof.timeline.z, beside the CUBE data. Cube readers
 * ignore members they do not know. The member is one zlib stream; inflated,
 * it is the bytes "hprof-timeline-z 2\n" and then numbers, each an unsigned
 * LEB128 (7 bits a byte, low first; a signed one, marked i, zigzag-mapped:
 * 0, -1, 1, -2 ... as 0, 1, 2, 3 ...):
 *
 *   width_ns                bucket width (all ranks folded to the widest)
 *   N                       buckets
 *   P                       ranks
 *   F                       fields: mpi_ns comp_ns visits bytes_sent
 *                           bytes_received (5; a later version may add some)
 *   K                       the heaviest call paths over time
 *                           (HPROF_TIME_PATHS, path_series.h), 0 to K-1
 *   K x cnode               path k is the cnode with that id in anchor.xml
 *   P records, rank by rank:
 *     i offset              the rank started its measurement that many ns
 *                           after rank 0 (< 0: before); its buckets are
 *                           moved by that much, to the nearest bucket
 *     M, M x (ns, i level)  its MPI_Pcontrol(level) marks at ns
 *     dropped               its marks past the first TIMELINE_MAX_PHASES,
 *                           not kept (rank 0 also says so in one line)
 *     spilled_ns            time its logs could give no path (full logs; 0
 *                           normally): the path series miss that much
 *     F series              its field f per bucket
 *     K x 2 series          inclusive time of path k per bucket in ns, MPI
 *                           then computation
 *
 * A series is a number s: when it is the count of series read so far, N
 * values follow (a new series, numbered s); otherwise it is series s
 * again. Ranks that behaved alike (all idle paths, the same counts) share
 * one stored series, and zlib takes most of the rest.
 *
 * The records travel to rank 0 along a binomial tree (timeline_tree.h),
 * each rank's stream its own record and then its subtree's, in the same
 * form with numbers of its own; each rank passes its children's streams
 * on, naming a series it has passed on before instead of sending it again,
 * and rank 0 deflates what comes as it comes. Rank 0 holds no rank's part
 * whole: what it holds grows with the distinct series, not the ranks.
 * With HPROF_SIMULATE_RANKS=K each rank sends K records, simulated rank j's
 * series its own moved right by j % 4 buckets (sums kept), its offset and
 * marks its own: four shapes a rank, the rest named by number.
 *
 * Profiles before this one hold version 1, "hprof-timeline-z 1\n": the same
 * head without K, then P x F series, P x i offset, P x (M, M x (ns, i
 * level)), P x dropped, K, K x cnode, K x P x 2 series, spilled_ns (all
 * ranks'); and before that the member hprof.timeline as text (the same
 * content: "hprof-timeline 1", then "width_ns W", "buckets N", "ranks P",
 * "fields ...", "rank R FIELD v...", "offset R NS", "phase R T LEVEL",
 * "phases_dropped R N", "paths K", "path P CNODE", "path_series P R FIELD
 * v..." with runs of zeros as 0*N, "paths_spilled_ns S"); hprof-view reads
 * all three.
 *
 * Times count from rank 0's MPI_Init entry on every rank: each rank's
 * start is placed on rank 0's time line by round trips along a binomial
 * tree (clock_align.h, the offsets); only each rank's own clock is read,
 * so hosts' clocks need not agree.
 */
#ifndef HPROF_TIMELINE_FILE_H
#define HPROF_TIMELINE_FILE_H

#include <mpi.h>
#include <stddef.h>

#include "report/merge/path_series.h"
#include "report/merge/timeline_drop.h"
#include "core/timeline.h"

#define TIMELINE_MEMBER "hprof.timeline.z"
#define TIMELINE_MAGIC "hprof-timeline-z 2\n"

/* The sizes the ranks agree on, each by its max over the ranks, before
 * the member is made: buckets, their width's shift, the path logs' shift,
 * the simulated ranks (a stream holds as many records as its parent
 * expects). This rank's from `mine`, its histogram (its threads summed;
 * nbuckets 0: none), and paths' profile; the merge agrees on them with
 * the paths (path_series_select), in one reduction. */
#define TIMELINE_SIZES 4
void timeline_file_sizes(const hprof_timeline *mine, const timeline_paths *paths,
                         unsigned sizes[TIMELINE_SIZES]);

/* Collective over comm. sizes: as agreed (timeline_file_sizes); paths
 * (k 0: none) the chosen paths. Returns the member's bytes on rank 0
 * (malloc'd, *len set), NULL on the other ranks, when no rank has a
 * histogram, or when it failed; *outcome says which on rank 0
 * (timeline_drop.h). */
unsigned char *timeline_file_member(MPI_Comm comm, const unsigned sizes[TIMELINE_SIZES],
                                    const hprof_timeline *mine, const timeline_phase_mark *phases,
                                    int nphases, unsigned long long phases_dropped,
                                    const timeline_paths *paths, size_t *len, timeline_outcome *outcome);

#endif
