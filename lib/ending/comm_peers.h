/*
 * comm_peers.h - the world ranks of the communicators the program made, so
 * that a snapshot names whom a rank waits for (lib/ending/live_snapshot.h) without
 * an MPI call: a snapshot is written by a forked child, where calling into
 * the MPI library is not safe. Each communicator is noted as its wrapper
 * returns it (one group translation, as collective as its creation), and
 * forgotten before MPI_Comm_free/MPI_Comm_disconnect.
 */
#ifndef HPROF_COMM_PEERS_H
#define HPROF_COMM_PEERS_H

#include <mpi.h>
#include <stddef.h>

#include "lib/measure.h"

/* After a wrapper's call made comm (MPI_COMM_NULL is ignored). Not for
 * MPI_Comm_idup's, unusable until its request completes. */
void comm_peers_note(MPI_Comm comm);
void comm_peers_forget(MPI_Comm comm);

/* The world rank of rank `local` of the communicator with key (of its
 * remote group for an intercommunicator); -1 where it is not known. No MPI
 * call and no lock: for a forked child. */
int comm_peers_world_rank(uint64_t comm, int local);

/* " fn=MPI_Recv comm=world source=2 tag=7": one thread's call under way as
 * words KEY=VALUE (view_now.c reads them): comm is world, self, size<N>
 * or inter<N>; a peer is a world rank, any, none (MPI_PROC_NULL) or
 * local<N> where its world rank is not known; a tag (sendtag and recvtag
 * where the call has both) a number or any. Without a lock: for a forked
 * child, whose copy nothing changes. */
void comm_peers_describe(const char *fn, const hprof_call_where *where, char *buf, size_t len);

#endif
