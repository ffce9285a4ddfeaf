/*
 * abandon.h - when MPI_Finalize will never come: exit() without it,
 * MPI_Abort, a fatal signal (a crash, or the launcher killing the job after
 * another rank died). Each rank that gets there writes its own fallback
 * profile (report/profile/fallback.h) without any MPI communication, then the
 * program goes on dying exactly as it would have: same exit status, same
 * signal. Forked children never write anything.
 */
#ifndef HPROF_ABANDON_H
#define HPROF_ABANDON_H

/* Arms the exit, fork and fatal-signal hooks; called at MPI_Init.
 * book_in_flight books the calling thread's MPI call under way, if any
 * (measure.h's hprof_call_book_in_flight), book_stopped another thread's
 * in the writer, where that thread no longer runs
 * (hprof_call_book_stopped): passed in, since the wrappers' MPI_Abort
 * calls into this file. */
struct hprof_thread;
void abandon_arm(int rank, int nranks, void (*book_in_flight)(void),
                 void (*book_stopped)(struct hprof_thread *t));

/* Writes this rank's fallback profile if the measurement still runs, or
 * if MPI_Finalize's merge has begun and not ended. */
void abandon_measurement(const char *reason);

/* For a process that only writes and exits (the fallback writer, a
 * snapshot's child of lib/ending/live_snapshot.h): the measurement stops now on every
 * thread (abandon_stop_threads), then this rank's profile is written as a
 * one-rank file <output's stem>.rank<R>.cubex with reason in
 * hprof::partial, and now (where its threads are, NULL: none) in hprof::now:
 * 0 and path, or -1 and err. A writer that has not ended
 * after two minutes (a lock held for good since the fork) is killed. */
void abandon_stop_threads(void);
int abandon_write_rank(const char *output, const char *reason, const char *now, char *path, int pathlen,
                       char *err, int errlen);

/* Around MPI_Finalize's merge and write: an MPI_Abort (from another
 * thread) or a fatal signal (the launcher ending the job after another
 * rank aborted) that comes meanwhile ends the merge before it wrote
 * anything; each rank that gets there writes its own partial profile
 * then, as before MPI_Finalize. */
void abandon_merge_begins(void);
void abandon_merge_ended(void);

#endif
