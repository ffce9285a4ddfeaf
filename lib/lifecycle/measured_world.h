/*
 * measured_world.h - the communicator hprof's measurement runs over in the
 * World model (MPI_Init): the processes of MPI_COMM_WORLD that measure,
 * found by each of them alone (app_layout.h). When every process measures
 * it is a duplicate of MPI_COMM_WORLD; when some part of an MPMD launch does
 * not, it is made by MPI_Comm_create_group, collective over the measuring
 * processes only, so that nothing of hprof's ever waits for a process
 * without hprof.
 */
#ifndef HPROF_MEASURED_WORLD_H
#define HPROF_MEASURED_WORLD_H

#include <mpi.h>

/* Called once, from MPI_Init's wrapper. Says in one line (from the first
 * measuring process) which ranks are left out; returns MPI_COMM_NULL, and
 * says why, when measurement must stay off in this process. */
MPI_Comm measured_world_comm(void);

#endif
