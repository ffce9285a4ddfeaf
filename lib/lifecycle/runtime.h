/*
 * runtime.h - what opening and closing the measurement does (runtime.c).
 * lib/lifecycle/lifecycle.c decides which MPI call opens and which closes it.
 */
#ifndef HPROF_RUNTIME_H
#define HPROF_RUNTIME_H

#include <mpi.h>
#include <stdint.h>

/* Opens the measurement, once: after MPI_Init / MPI_Init_thread returned
 * MPI_SUCCESS, or after the first MPI_Session_init (fn and start_ns
 * describe the init call itself, so it is recorded like any other MPI
 * call; comm spans all processes: MPI_COMM_WORLD, or one derived from a
 * session). */
void hprof_runtime_start(int fn, uint64_t start_ns, MPI_Comm comm);
/* Closes it before PMPI_Finalize, or before the last
 * MPI_Session_finalize's PMPI call: merges and writes the profile over
 * the communicator the start was given. */
void hprof_runtime_stop(void);
/* An init call (MPI_Init after a session opened the measurement, a session
 * opened while another thread's opened it, or the opening call itself)
 * recorded like any MPI call: from start_ns to now. */
void hprof_runtime_record_init(int fn, uint64_t start_ns);

#endif
