/* quiet.c - test, then sleep a little longer each time. */
#include "report/merge/quiet.h"

#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FIRST_NS 20000L
#define MOST_NS 1000000L
#define LONG_WAIT_NS 50000000L /* waited this long: ... */
#define LONG_NAP_NS 4000000L   /* ... a rank that does the work is busy; nap longer */

static unsigned long collectives;

unsigned long quiet_collectives(void)
{
    return collectives;
}

/* *ns: the next nap; *waited: the naps so far. Where many ranks wait for
 * one, each test is a wake-up the working rank pays for on a shared core
 * (MPICH's test is cheap, but 63 ranks waking every millisecond took a
 * third of a core). */
static void nap(long *ns, long *waited)
{
    struct timespec ts = { 0, *ns };
    nanosleep(&ts, NULL);
    *waited += *ns;
    long most = *waited >= LONG_WAIT_NS ? LONG_NAP_NS : MOST_NS;
    if (*ns < most)
        *ns = *ns * 2 < most ? *ns * 2 : most;
}

/* quiet_wait with the request's result. */
static int finish(MPI_Request *req)
{
    long ns = FIRST_NS, waited = 0;
    for (int done = 0;;) {
        int rc = PMPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done)
            return rc;
        nap(&ns, &waited);
    }
}

void quiet_wait(MPI_Request *req)
{
    finish(req);
}

void quiet_bcast_ints(int *v, int n, MPI_Comm comm)
{
    collectives++;
    MPI_Request req;
    if (PMPI_Ibcast(v, n, MPI_INT, 0, comm, &req) == MPI_SUCCESS)
        quiet_wait(&req);
}

void quiet_probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    long ns = FIRST_NS, waited = 0;
    for (int found = 0;;) {
        if (PMPI_Iprobe(source, tag, comm, &found, status) != MPI_SUCCESS)
            break;
        if (found)
            return;
        nap(&ns, &waited);
    }
    PMPI_Probe(source, tag, comm, status);
}

int quiet_recv(void *buf, int n, MPI_Datatype type, int source, int tag, MPI_Comm comm)
{
    MPI_Request req;
    int rc = PMPI_Irecv(buf, n, type, source, tag, comm, &req);
    return rc == MPI_SUCCESS ? finish(&req) : rc;
}

int quiet_recv_soon(void *buf, int n, MPI_Datatype type, int source, int tag, MPI_Comm comm)
{
    MPI_Request req;
    int rc = PMPI_Irecv(buf, n, type, source, tag, comm, &req);
    for (int done = 0; rc == MPI_SUCCESS;) {
        rc = PMPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done)
            break;
        sched_yield();
    }
    return rc;
}

int quiet_send(const void *buf, int n, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    MPI_Request req;
    int rc = PMPI_Isend(buf, n, type, dest, tag, comm, &req);
    return rc == MPI_SUCCESS ? finish(&req) : rc;
}

int quiet_allreduce(const void *in, void *out, int n, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    collectives++;
    MPI_Request req;
    int rc = PMPI_Iallreduce(in, out, n, type, op, comm, &req);
    return rc == MPI_SUCCESS ? finish(&req) : rc;
}

int quiet_reduce(const void *in, void *out, int n, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
    collectives++;
    MPI_Request req;
    int rc = PMPI_Ireduce(in, out, n, type, op, root, comm, &req);
    return rc == MPI_SUCCESS ? finish(&req) : rc;
}

int quiet_bcast(void *buf, int n, MPI_Datatype type, int root, MPI_Comm comm)
{
    collectives++;
    MPI_Request req;
    int rc = PMPI_Ibcast(buf, n, type, root, comm, &req);
    return rc == MPI_SUCCESS ? finish(&req) : rc;
}

/* Gathers go straight to the root, each rank's part a message of its own
 * (tag TAG_GATHER; messages between two ranks keep their order, so one
 * gather cannot take another's): MPICH's non-blocking gather goes through
 * a tree whose inner ranks move the data on only when they test, a nap
 * per level and message (0.2 s for a time line at 64 ranks); here the
 * senders wait side by side. The root holds every part either way. */
#define TAG_GATHER 4715

int quiet_gatherv(const void *in, int nin, MPI_Datatype tin, void *out, const int *counts, const int *displs,
                  MPI_Datatype tout, int root, MPI_Comm comm)
{
    collectives++;
    int rank, size, rc = MPI_SUCCESS;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    if (rank != root)
        return quiet_send(in, nin, tin, root, TAG_GATHER, comm);
    MPI_Aint lb, extent;
    MPI_Request *reqs = malloc(sizeof *reqs * (size_t)(size + 1));
    if (!reqs || PMPI_Type_get_extent(tout, &lb, &extent) != MPI_SUCCESS) {
        free(reqs);
        return MPI_ERR_NO_MEM;
    }
    for (int r = 0; r < size; r++) {
        reqs[r] = MPI_REQUEST_NULL;
        if (rc == MPI_SUCCESS)
            rc = PMPI_Irecv((char *)out + (MPI_Aint)displs[r] * extent, counts[r], tout, r, TAG_GATHER, comm,
                            &reqs[r]);
    }
    reqs[size] = MPI_REQUEST_NULL;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Isend(in, nin, tin, root, TAG_GATHER, comm, &reqs[size]);
    for (int r = 0; r <= size; r++) { /* all posted are waited for, whatever failed */
        int rr = reqs[r] != MPI_REQUEST_NULL ? finish(&reqs[r]) : MPI_SUCCESS;
        if (rc == MPI_SUCCESS)
            rc = rr;
    }
    free(reqs);
    return rc;
}

int quiet_gather(const void *in, int nin, MPI_Datatype tin, void *out, int nout, MPI_Datatype tout, int root,
                 MPI_Comm comm)
{
    int rank, size;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    if (rank != root)
        return quiet_gatherv(in, nin, tin, NULL, NULL, NULL, tout, root, comm);
    int *counts = malloc(sizeof *counts * (size_t)size), *displs = malloc(sizeof *displs * (size_t)size);
    int rc = MPI_ERR_NO_MEM;
    if (counts && displs) {
        for (int r = 0; r < size; r++)
            counts[r] = nout, displs[r] = r * nout;
        rc = quiet_gatherv(in, nin, tin, out, counts, displs, tout, root, comm);
    }
    free(counts);
    free(displs);
    return rc;
}

int quiet_barrier(MPI_Comm comm)
{
    collectives++;
    MPI_Request req;
    int rc = PMPI_Ibarrier(comm, &req);
    return rc == MPI_SUCCESS ? finish(&req) : rc;
}

int quiet_comm_dup(MPI_Comm comm, MPI_Comm *dup)
{
    collectives++;
    MPI_Request req;
    int rc = PMPI_Comm_idup(comm, dup, &req);
    return rc == MPI_SUCCESS ? finish(&req) : rc;
}

static size_t pieces_of(size_t bytes)
{
    return (bytes + QUIET_PIECE - 1) / QUIET_PIECE;
}

static int send_blob(const void *mine, size_t bytes, int root, int tag, MPI_Comm comm)
{
    uint64_t head = bytes;
    size_t n = pieces_of(bytes);
    MPI_Request *reqs = malloc(sizeof *reqs * (n + 1));
    if (!reqs) { /* say none, rather than leave the root waiting */
        head = 0;
        return quiet_send(&head, 1, MPI_UINT64_T, root, tag, comm);
    }
    int rc = PMPI_Isend(&head, 1, MPI_UINT64_T, root, tag, comm, &reqs[0]);
    for (size_t i = 0; i < n; i++) {
        size_t len = bytes - i * QUIET_PIECE < QUIET_PIECE ? bytes - i * QUIET_PIECE : QUIET_PIECE;
        reqs[i + 1] = MPI_REQUEST_NULL;
        if (rc == MPI_SUCCESS)
            rc = PMPI_Isend((const char *)mine + i * QUIET_PIECE, (int)len, MPI_BYTE, root, tag + 1, comm,
                            &reqs[i + 1]);
    }
    for (size_t i = 0; i <= n; i++)
        if (reqs[i] != MPI_REQUEST_NULL)
            finish(&reqs[i]);
    free(reqs);
    return rc;
}

int quiet_gather_blobs(const void *mine, size_t bytes, void **blobs, size_t *sizes, int root, int tag,
                       MPI_Comm comm)
{
    collectives++;
    int rank, size, rc = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    if (rank != root)
        return send_blob(mine, bytes, root, tag, comm) == MPI_SUCCESS ? 0 : -1;
    size_t nreqs = 0, cap = 0;
    MPI_Request *reqs = NULL;
    int keep = blobs && sizes; /* else every blob is taken and dropped */
    for (int r = 0; keep && r < size; r++)
        blobs[r] = NULL, sizes[r] = 0;
    if (keep && (blobs[root] = malloc(bytes + 1)) != NULL) {
        if (bytes)
            memcpy(blobs[root], mine, bytes);
        sizes[root] = bytes;
    }
    /* whichever comes first: a rank not yet there holds up none of the others */
    for (int k = 1; k < size; k++) {
        MPI_Status st;
        uint64_t head = 0;
        quiet_probe(MPI_ANY_SOURCE, tag, comm, &st);
        int r = st.MPI_SOURCE;
        PMPI_Recv(&head, 1, MPI_UINT64_T, r, tag, comm, MPI_STATUS_IGNORE);
        size_t n = pieces_of(head);
        char *blob = keep ? malloc(head + 1) : NULL;
        if (blob && nreqs + n > cap) {
            size_t more = cap * 2 > nreqs + n ? cap * 2 : nreqs + n + 64;
            MPI_Request *grown = realloc(reqs, sizeof *reqs * more);
            if (grown) {
                reqs = grown, cap = more;
            } else {
                free(blob);
                blob = NULL;
            }
        }
        for (size_t i = 0; i < n; i++) {
            size_t len = head - i * QUIET_PIECE < QUIET_PIECE ? head - i * QUIET_PIECE : QUIET_PIECE;
            if (blob) {
                PMPI_Irecv(blob + i * QUIET_PIECE, (int)len, MPI_BYTE, r, tag + 1, comm, &reqs[nreqs++]);
            } else { /* no memory: the piece is taken and dropped (truncated) */
                char none;
                PMPI_Recv(&none, 0, MPI_BYTE, r, tag + 1, comm, MPI_STATUS_IGNORE);
            }
        }
        if (blob)
            blobs[r] = blob, sizes[r] = head;
        else
            rc = -1;
    }
    for (size_t i = 0; i < nreqs; i++)
        finish(&reqs[i]);
    free(reqs);
    return keep && blobs[root] ? rc : -1;
}
