/*
 * quiet.h - waiting at finalize without taking a core from the rank that
 * works. MPI libraries poll while they wait (Open MPI, oversubscribed,
 * yields the core between polls and takes it straight back); the waits of
 * the merge are long ones, mostly for rank 0 writing the file, and where
 * ranks outnumber cores every polling rank slows the one that works. These
 * test and sleep instead (20 us, doubling up to 1 ms: a wait costs at most
 * a millisecond more than it lasts).
 */
#ifndef HPROF_QUIET_H
#define HPROF_QUIET_H

#include <mpi.h>

void quiet_wait(MPI_Request *req);
/* PMPI_Bcast of n ints from rank 0. */
void quiet_bcast_ints(int *v, int n, MPI_Comm comm);
/* PMPI_Probe. */
void quiet_probe(int source, int tag, MPI_Comm comm, MPI_Status *status);

#endif
