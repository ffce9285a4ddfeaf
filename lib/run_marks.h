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

#endif
