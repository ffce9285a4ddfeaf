/*
 * session.h - hprof's own MPI session, for a process that uses MPI-4
 * sessions without MPI_Init. There is no MPI_COMM_WORLD there, and the
 * measurement needs a communicator over all processes: for its rank and
 * for the merge at the end. hprof derives one from a session of its own
 * (the process set mpi://WORLD), so that the program's sessions can end in
 * any order without taking hprof's communicator with them.
 */
#ifndef HPROF_SESSION_H
#define HPROF_SESSION_H

#include <mpi.h>

/* Opens hprof's session and derives from it a communicator over
 * mpi://WORLD. Collective over all processes of the job (as the program's
 * own MPI_Comm_create_from_group over mpi://WORLD is). Returns the
 * communicator, or MPI_COMM_NULL with *why naming what the MPI library
 * refused, or why not every process measures (parts of an MPMD launch
 * hprof-run could not preload: app_layout.h); nothing is left open then. */
MPI_Comm hprof_session_open(const char **why);

/* Frees the communicator and finalizes hprof's session (after the merge). */
void hprof_session_close(void);

#endif
