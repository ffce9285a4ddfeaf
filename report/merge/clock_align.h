/*
 * clock_align.h - where each rank's measurement started on rank 0's time
 * line, for the time line member (timeline_file.h). Along a binomial tree
 * (rank r's parent is r with its lowest set bit cleared) each rank
 * measures each of its children against itself and passes down the sum of
 * its own offset and the child's: ceil(log2 P) rounds, every pair of a
 * round at once, instead of rank 0 asking every rank in turn. Only each
 * rank's own time since its start is read: hosts' clocks need not agree.
 *
 * A child's offset against its parent: the parent sends its time since
 * its start, the child answers with its own, and the answer stands for
 * the middle of the round trip on the parent's clock; of up to a few round
 * trips (until one is short) the shortest counts, a rank descheduled in
 * between making a long one. Each hop's error is at most half its round
 * trip, and errors add up along the log2 P hops to rank 0.
 */
#ifndef HPROF_CLOCK_ALIGN_H
#define HPROF_CLOCK_ALIGN_H

#include <mpi.h>

/* Collective over comm: ns this rank started after rank 0 (< 0: before;
 * 0 on rank 0). */
long long clock_align_offset(MPI_Comm comm);

#endif
