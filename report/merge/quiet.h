/*
 * quiet.h - waiting at finalize without taking a core from the rank that
 * works. MPI libraries poll while they wait (Open MPI, oversubscribed,
 * yields the core between polls and takes it straight back); the waits of
 * the merge are long ones, mostly for rank 0 writing the file, and where
 * ranks outnumber cores every polling rank slows the one that works (MPICH
 * polls in every blocking call). These test and sleep instead (20 us,
 * doubling up to 1 ms, and up to 4 ms once a wait has lasted 50 ms: a wait
 * costs at most that much more than it lasts).
 */
#ifndef HPROF_QUIET_H
#define HPROF_QUIET_H

#include <mpi.h>
#include <stddef.h>

void quiet_wait(MPI_Request *req);
/* PMPI_Bcast of n ints from rank 0. */
void quiet_bcast_ints(int *v, int n, MPI_Comm comm);
/* PMPI_Probe. */
void quiet_probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
/* PMPI_Recv, PMPI_Send. */
int quiet_recv(void *buf, int n, MPI_Datatype type, int source, int tag, MPI_Comm comm);
int quiet_send(const void *buf, int n, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
/* PMPI_Recv of a message due any moment (a ping-pong): tests and yields
 * the core between tests, to the sender where the two share one, rather
 * than sleep (a nap would be the round trip) or poll (MPICH's blocking
 * receive held the core the answer needed until its time slice ended). */
int quiet_recv_soon(void *buf, int n, MPI_Datatype type, int source, int tag, MPI_Comm comm);

/* The collectives of the finalize, as their non-blocking forms and a quiet
 * wait (MPICH's blocking ones poll: at 32 ranks on 2 cores each took
 * about 0.1 s, and the finalize made dozens); gathers as one message a
 * rank to the root (quiet.c says why). Same arguments and result as
 * PMPI_<name>. */
int quiet_allreduce(const void *in, void *out, int n, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int quiet_reduce(const void *in, void *out, int n, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm);
int quiet_bcast(void *buf, int n, MPI_Datatype type, int root, MPI_Comm comm);
int quiet_gather(const void *in, int nin, MPI_Datatype tin, void *out, int nout, MPI_Datatype tout, int root,
                 MPI_Comm comm);
int quiet_gatherv(const void *in, int nin, MPI_Datatype tin, void *out, const int *counts, const int *displs,
                  MPI_Datatype tout, int root, MPI_Comm comm);
int quiet_barrier(MPI_Comm comm);

/* Every rank's blob of bytes to root, whichever rank comes first, in
 * pieces of at most QUIET_PIECE bytes after a header with the size
 * (tags tag and tag + 1): after messages of tens of KB between the ranks
 * of a node, MPICH's own MPI_Finalize can take twice as long or more,
 * without hprof too; messages of a few KB do not slow it. At root:
 * blobs[r] (malloc'd; NULL where memory failed) of sizes[r] bytes, its own
 * copied (blobs or sizes NULL: none kept). 0, or -1 when memory failed (every message is taken all the
 * same: no rank is left waiting). */
#define QUIET_PIECE 4096
int quiet_gather_blobs(const void *mine, size_t bytes, void **blobs, size_t *sizes, int root, int tag,
                       MPI_Comm comm);
int quiet_comm_dup(MPI_Comm comm, MPI_Comm *dup);

/* The collectives above this process has made so far (a gather counted
 * once): each is a round every rank waits for, some naps long where
 * ranks outnumber cores, so the merge says how many it made. */
unsigned long quiet_collectives(void);

#endif
