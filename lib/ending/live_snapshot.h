/*
 * live_snapshot.h - a profile of the running job, on demand (issue 37.1):
 * hprof-snapshot (or hprof-run's HPROF_SNAPSHOT_EVERY) writes a request into
 * hprof-run's folder (HPROF_RUN_MARKS/snapshot.request: "SEQ WHEN"); a
 * thread of hprof's in each rank sees it within a tenth of a second and
 * forks: the child, holding the rank's memory as it was at that moment,
 * stops the measurement in its copy, writes this rank's profile as
 * <stem>.snapshot-<SEQ>.rank<R>.cubex (hprof::partial: "snapshot asked
 * for at WHEN") and leaves the mark snap.<SEQ>.<rank>.<host>.<pid> naming it;
 * hprof-snapshot merges the ranks' files. The program's threads are not
 * stopped (the fork copies the page tables, the writing is the child's),
 * no MPI call is made, and no signal the program uses is taken: the
 * request is a file. Only under hprof-run (no folder, no listener).
 */
#ifndef HPROF_LIVE_SNAPSHOT_H
#define HPROF_LIVE_SNAPSHOT_H

/* At MPI_Init, after abandon_arm: the listener, when HPROF_RUN_MARKS is set. */
void snapshot_listen_start(int rank, int nranks);

#endif
