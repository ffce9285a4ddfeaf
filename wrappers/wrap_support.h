/*
 * wrap_support.h - helpers shared by the generated MPI wrappers
 * (build/<mpi>/gen/wrappers_c.c and wrappers_f.c): datatype sizes, bytes from
 * statuses, the collective byte rules, request bookkeeping, phase marks.
 * None of them allocates or locks. All MPI calls in here are PMPI_ calls.
 */
#ifndef HPROF_WRAP_SUPPORT_H
#define HPROF_WRAP_SUPPORT_H

#include <mpi.h>
#include <stdint.h>
#include "lib/measure.h"
#include "wrappers/requests.h"
/* hprof_thread_scratch(), which the generated wrappers call */
#include "lib/threads/thread.h"

#define HPROF_EXPORT __attribute__((visibility("default")))

/* Size in bytes of one element of dt (0 for MPI_DATATYPE_NULL or on error). */
uint64_t hprof_w_tsize(MPI_Datatype dt);
/* Bytes transferred according to a status (PMPI_Get_elements_x, MPI_BYTE);
 * 0 for MPI_UNDEFINED, an empty status or a NULL pointer. */
uint64_t hprof_w_status_bytes(const MPI_Status *st);
/* Same for a Fortran status (MPI_F_STATUS_SIZE MPI_Fints). */
uint64_t hprof_w_fstatus_bytes(const MPI_Fint *fst);

/* ---- collective rules: add this rank's send/receive bytes to b[] -------- */
/* an array of counts: int[] (classic) or MPI_Count[] (the _c variants) */
typedef struct {
    const void *p;
    int big;
} hprof_counts;
static inline hprof_counts hprof_cnt_int(const int *p)
{
    hprof_counts c = { p, 0 };
    return c;
}
static inline hprof_counts hprof_cnt_big(const MPI_Count *p)
{
    hprof_counts c = { p, 1 };
    return c;
}
/* an array of datatypes: C handles or Fortran handles */
typedef struct {
    const MPI_Datatype *c;
    const MPI_Fint *f;
} hprof_types;
static inline hprof_types hprof_types_c(const MPI_Datatype *p)
{
    hprof_types t = { p, 0 };
    return t;
}
static inline hprof_types hprof_types_f(const MPI_Fint *p)
{
    hprof_types t = { 0, p };
    return t;
}

void hprof_coll_bcast(uint64_t *b, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm);
void hprof_coll_gather(uint64_t *b, int inplace, MPI_Count scount, MPI_Datatype stype, MPI_Count rcount,
                       MPI_Datatype rtype, int root, MPI_Comm comm);
void hprof_coll_gatherv(uint64_t *b, int inplace, MPI_Count scount, MPI_Datatype stype, hprof_counts rcounts,
                        MPI_Datatype rtype, int root, MPI_Comm comm);
void hprof_coll_scatter(uint64_t *b, int inplace, MPI_Count scount, MPI_Datatype stype, MPI_Count rcount,
                        MPI_Datatype rtype, int root, MPI_Comm comm);
void hprof_coll_scatterv(uint64_t *b, int inplace, hprof_counts scounts, MPI_Datatype stype, MPI_Count rcount,
                         MPI_Datatype rtype, int root, MPI_Comm comm);
void hprof_coll_allgather(uint64_t *b, int inplace, MPI_Count scount, MPI_Datatype stype, MPI_Count rcount,
                          MPI_Datatype rtype, MPI_Comm comm);
void hprof_coll_allgatherv(uint64_t *b, int inplace, MPI_Count scount, MPI_Datatype stype,
                           hprof_counts rcounts, MPI_Datatype rtype, MPI_Comm comm);
void hprof_coll_alltoall(uint64_t *b, int inplace, MPI_Count scount, MPI_Datatype stype, MPI_Count rcount,
                         MPI_Datatype rtype, MPI_Comm comm);
void hprof_coll_alltoallv(uint64_t *b, int inplace, hprof_counts scounts, MPI_Datatype stype,
                          hprof_counts rcounts, MPI_Datatype rtype, MPI_Comm comm);
void hprof_coll_alltoallw(uint64_t *b, int inplace, hprof_counts scounts, hprof_types stypes,
                          hprof_counts rcounts, hprof_types rtypes, MPI_Comm comm);
void hprof_coll_allreduce(uint64_t *b, int inplace, MPI_Count count, MPI_Datatype dt, MPI_Comm comm);
void hprof_coll_reduce(uint64_t *b, int inplace, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm);
void hprof_coll_reduce_scatter(uint64_t *b, int inplace, hprof_counts rcounts, MPI_Datatype dt,
                               MPI_Comm comm);
void hprof_coll_reduce_scatter_block(uint64_t *b, int inplace, MPI_Count rcount, MPI_Datatype dt,
                                     MPI_Comm comm);
void hprof_coll_scan(uint64_t *b, int inplace, MPI_Count count, MPI_Datatype dt, MPI_Comm comm);
void hprof_coll_exscan(uint64_t *b, MPI_Count count, MPI_Datatype dt, MPI_Comm comm);
void hprof_coll_neighbor_allgather(uint64_t *b, MPI_Count scount, MPI_Datatype stype, MPI_Count rcount,
                                   MPI_Datatype rtype, MPI_Comm comm);
void hprof_coll_neighbor_allgatherv(uint64_t *b, MPI_Count scount, MPI_Datatype stype, hprof_counts rcounts,
                                    MPI_Datatype rtype, MPI_Comm comm);
void hprof_coll_neighbor_alltoall(uint64_t *b, MPI_Count scount, MPI_Datatype stype, MPI_Count rcount,
                                  MPI_Datatype rtype, MPI_Comm comm);
void hprof_coll_neighbor_alltoallv(uint64_t *b, hprof_counts scounts, MPI_Datatype stype,
                                   hprof_counts rcounts, MPI_Datatype rtype, MPI_Comm comm);
void hprof_coll_neighbor_alltoallw(uint64_t *b, hprof_counts scounts, hprof_types stypes,
                                   hprof_counts rcounts, hprof_types rtypes, MPI_Comm comm);

/* ---- requests (see requests.h) ------------------------------------------ */
/* Any request tracked at all? When not, completion wrappers skip their copies. */
static inline int hprof_w_req_any(void)
{
    return hprof_req_live() > 0;
}
/* Remember request r: flags HPROF_REQ_*, bytes for persistent operations. */
void hprof_w_req_track(MPI_Request r, unsigned flags, uint64_t sent, uint64_t recv);
/* Request `saved` (its handle before the completion call) completed with
 * status st: count received bytes, forget it unless persistent. */
void hprof_w_req_complete(uint64_t *b, MPI_Request saved, const MPI_Status *st);
/* The same for the Fortran bindings: the status as a Fortran status. */
void hprof_w_req_fcomplete(uint64_t *b, MPI_Request saved, const MPI_Fint *fst);
/* MPI_Start on r: count the bytes remembered for a persistent operation. */
void hprof_w_req_start(uint64_t *b, MPI_Request r);
/* MPI_Request_free */
void hprof_w_req_forget(MPI_Request r);

/* MPI_Pcontrol(level): a phase mark on the timeline (core/timeline.h). */
void hprof_w_phase(int level);

#endif
