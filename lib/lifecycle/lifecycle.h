/*
 * lifecycle.h - which MPI calls open and close the measurement: the
 * runtime's entry points for the generated init, finalize and session
 * wrappers (C and Fortran). Two ways into MPI: the World model (between
 * MPI_Init and MPI_Finalize) and sessions (MPI-4); whichever comes first
 * opens the measurement (lib/lifecycle/runtime.h), and the last to end closes it.
 */
#ifndef HPROF_LIFECYCLE_H
#define HPROF_LIFECYCLE_H

#include <stdint.h>

/* Called by every MPI_Init/MPI_Init_thread wrapper (C and Fortran) after a
 * successful PMPI init: starts the runtime once, and not from a C init that
 * runs inside a Fortran init wrapper (MPICH's mpi_init_ calls MPI_Init). */
void hprof_lifecycle_init_done(int fn, uint64_t t0);
/* A Fortran init wrapper: around its PMPI call. */
void hprof_lifecycle_nest_enter(void);
void hprof_lifecycle_nest_leave(void);
/* Sessions (MPI-4), like MPI_Init/MPI_Finalize: the first session opens
 * the measurement, over a communicator from hprof's own session (unless
 * MPI_Init opened it: a session never reopens it), and the last one to
 * end closes it, unless MPI_Finalize is still to come.
 * After a successful MPI_Session_init (C and Fortran; fn and t0 describe
 * the call, measured: whether its wrapper measures it): counts the
 * session, opens the measurement if it is the first; where the library
 * refuses a communicator, says in one line that this process is not
 * measured (run_marks.h). An init on another thread while the first opens
 * the measurement waits until it is open, and is recorded. */
void hprof_lifecycle_session_init(int fn, uint64_t t0, int measured);
/* At the entry of MPI_Session_finalize: counts the session as ended; 1 if
 * it was the last one and closed the measurement (merged and wrote the
 * profile): the wrapper then only passes the call on. */
int hprof_lifecycle_session_last(void);
/* Called by every MPI_Finalize wrapper before PMPI_Finalize: stops the
 * runtime once (not while a session that opened it is still open). */
void hprof_lifecycle_finalize(void);

#endif
