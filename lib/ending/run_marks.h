/*
 * run_marks.h - what a rank tells hprof-run, so that a run in which no rank
 * was measured never ends silently. hprof-run names a folder in
 * HPROF_RUN_MARKS; a rank whose measurement starts leaves a file there, and
 * a process that finds MPI initialised by someone else says so (one line)
 * and leaves a file naming the cause. Without HPROF_RUN_MARKS (LD_PRELOAD or
 * a relinked program) nothing is written, and the one line is still said.
 */
#ifndef HPROF_RUN_MARKS_H
#define HPROF_RUN_MARKS_H

/* The measurement of this process started (MPI_Init or MPI_Session_init). */
void run_marks_started(void);

/* MPI is initialised but hprof's measurement never started in this process:
 * says so once, with `how` (what hprof saw), and tells hprof-run. */
void run_marks_foreign_init(const char *how);

/* A job that ends without MPI_Finalize: each rank's partial profile
 * (lib/ending/abandon.h) is announced to hprof-run, which merges them once the
 * job has ended. run_marks_arm (at MPI_Init) makes the marks' names;
 * run_marks_partial_begins (from the dying rank, maybe in a signal
 * handler: open and close only) says a write is under way, as
 * writing.<rank>.<host>.<pid>; run_marks_partial_done (from the writer)
 * leaves partial.<rank>.<host>.<pid> holding "ok PATH" or "failed WHY",
 * whole when it appears (renamed into place). 1 from run_marks_in_use
 * when hprof-run is there to merge. */
void run_marks_arm(int rank);
int run_marks_in_use(void);
void run_marks_partial_begins(void);
void run_marks_partial_done(const char *path, const char *why);
/* From the dying rank once its writer runs, maybe in a signal handler
 * (access and nanosleep only): while hprof-run holds the job's ranks
 * (a file `hold` in the folder, 3 s at most), wait. hprof-run, stopping a
 * job, signals the ranks of its node first and lets them die together
 * once each has forked its writer: a launcher kills the remaining ranks as
 * soon as one dies (MPICH's proxy does), before they could fork theirs. */
void run_marks_hold_wait(void);
/* From the writer, first: its pid into writing.<...>, so that hprof-run
 * waits while it lives and not for a rank killed before it forked one. */
void run_marks_partial_writer(void);
/* A snapshot (lib/ending/live_snapshot.h) asked for as seq was written to path (or
 * not, why): snap.<seq>.<rank>.<host>.<pid>, whole when it appears. */
void run_marks_snapshot_done(const char *seq, int rank, const char *path, const char *why);
/* This rank went through MPI_Finalize's merge: hprof-run, seeing fewer of
 * these than ranks started and no partial profile, says the job was killed
 * before any rank could write one. */
void run_marks_finalized(void);

#endif
