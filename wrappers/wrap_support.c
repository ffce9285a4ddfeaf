/*
 * wrap_support.c - helpers for the generated MPI wrappers (see wrap_support.h).
 *
 * The collective rules follow Score-P's accounting (scorep_mpi_coll bytes
 * calculations), written anew here: every rank counts what it sends and
 * receives including its own block unless MPI_IN_PLACE says that block does
 * not move; intercommunicators count the remote group. wrappers/README.md
 * has the table.
 */
#include "core/clock.h"
#include "core/timeline.h"
#include "wrappers/wrap_support.h"
#include "core/log.h"
#include "wrappers/requests.h"

#include <string.h>

uint64_t hprof_w_tsize(MPI_Datatype dt)
{
    MPI_Count sz = 0;
    if (dt == MPI_DATATYPE_NULL)
        return 0;
    if (PMPI_Type_size_x(dt, &sz) != MPI_SUCCESS || sz < 0 || sz == MPI_UNDEFINED)
        return 0;
    return (uint64_t)sz;
}

uint64_t hprof_w_status_bytes(const MPI_Status *st)
{
    MPI_Count n = 0;
    if (!st || st == MPI_STATUS_IGNORE)
        return 0;
    if (PMPI_Get_elements_x(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED || n < 0)
        return 0;
    return (uint64_t)n;
}

uint64_t hprof_w_fstatus_bytes(const MPI_Fint *fst)
{
    MPI_Status st;
    if (!fst || fst == MPI_F_STATUS_IGNORE)
        return 0;
    if (PMPI_Status_f2c(fst, &st) != MPI_SUCCESS)
        return 0;
    return hprof_w_status_bytes(&st);
}

/* ---- collective rules ---------------------------------------------------- */

static inline uint64_t cnt(hprof_counts c, int i)
{
    if (!c.p)
        return 0;
    MPI_Count v = c.big ? ((const MPI_Count *)c.p)[i] : ((const int *)c.p)[i];
    return v > 0 ? (uint64_t)v : 0;
}

static inline uint64_t tsz(hprof_types t, int i)
{
    if (t.c)
        return hprof_w_tsize(t.c[i]);
    if (t.f)
        return hprof_w_tsize(PMPI_Type_f2c(t.f[i]));
    return 0;
}

static inline uint64_t u(MPI_Count c)
{
    return c > 0 ? (uint64_t)c : 0;
}

static int is_inter(MPI_Comm comm)
{
    int flag = 0;
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &flag) != MPI_SUCCESS)
        return 0;
    return flag;
}

static int my_rank(MPI_Comm comm)
{
    int r = 0;
    PMPI_Comm_rank(comm, &r);
    return r;
}

static int local_size(MPI_Comm comm)
{
    int n = 0;
    PMPI_Comm_size(comm, &n);
    return n;
}

static int remote_size(MPI_Comm comm)
{
    int n = 0;
    PMPI_Comm_remote_size(comm, &n);
    return n;
}

/* the partners of an all-to-all pattern: the group, or the remote group */
static int peers(MPI_Comm comm)
{
    return is_inter(comm) ? remote_size(comm) : local_size(comm);
}

/* All-to-one, in one direction: `up` bytes go from each rank to the root,
 * which receives `block(i)` from rank i. Adds to sent/recv of this rank.
 * Shared by gather(v), reduce and - with sent/recv swapped - scatter(v), bcast. */
static void all_to_one(uint64_t *sent, uint64_t *recv, int inplace, uint64_t up, hprof_counts rcounts,
                       uint64_t rcount, uint64_t rsize, int root, MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL)
        return;
    if (!is_inter(comm)) {
        int me = my_rank(comm);
        if (me == root) {
            int n = local_size(comm);
            uint64_t all = 0, mine;
            if (rcounts.p) {
                for (int i = 0; i < n; i++)
                    all += cnt(rcounts, i) * rsize;
                mine = cnt(rcounts, me) * rsize;
            } else {
                mine = rcount * rsize;
                all = (uint64_t)n * mine;
            }
            if (inplace) {
                *recv += all - mine;
            } else {
                *sent += mine;
                *recv += all;
            }
        } else {
            *sent += up;
        }
    } else if (root == MPI_ROOT) {
        int n = remote_size(comm);
        if (rcounts.p) {
            for (int i = 0; i < n; i++)
                *recv += cnt(rcounts, i) * rsize;
        } else
            *recv += (uint64_t)n * rcount * rsize;
    } else if (root != MPI_PROC_NULL) {
        *sent += up;
    }
}

static const hprof_counts no_counts = { 0, 0 };

void hprof_coll_bcast(uint64_t *b, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    uint64_t s = u(count) * hprof_w_tsize(dt);
    all_to_one(&b[HPROF_BYTES_RECEIVED], &b[HPROF_BYTES_SENT], 0, s, no_counts, u(count), hprof_w_tsize(dt),
               root, comm);
}

void hprof_coll_gather(uint64_t *b, int inplace, MPI_Count scount, MPI_Datatype stype, MPI_Count rcount,
                       MPI_Datatype rtype, int root, MPI_Comm comm)
{
    uint64_t up = (inplace ? 0 : u(scount) * hprof_w_tsize(stype));
    all_to_one(&b[HPROF_BYTES_SENT], &b[HPROF_BYTES_RECEIVED], inplace, up, no_counts, u(rcount),
               hprof_w_tsize(rtype), root, comm);
}

void hprof_coll_gatherv(uint64_t *b, int inplace, MPI_Count scount, MPI_Datatype stype, hprof_counts rcounts,
                        MPI_Datatype rtype, int root, MPI_Comm comm)
{
    uint64_t up = (inplace ? 0 : u(scount) * hprof_w_tsize(stype));
    all_to_one(&b[HPROF_BYTES_SENT], &b[HPROF_BYTES_RECEIVED], inplace, up, rcounts, 0, hprof_w_tsize(rtype),
               root, comm);
}

void hprof_coll_scatter(uint64_t *b, int inplace, MPI_Count scount, MPI_Datatype stype, MPI_Count rcount,
                        MPI_Datatype rtype, int root, MPI_Comm comm)
{
    uint64_t down = (inplace ? 0 : u(rcount) * hprof_w_tsize(rtype));
    all_to_one(&b[HPROF_BYTES_RECEIVED], &b[HPROF_BYTES_SENT], inplace, down, no_counts, u(scount),
               hprof_w_tsize(stype), root, comm);
}

void hprof_coll_scatterv(uint64_t *b, int inplace, hprof_counts scounts, MPI_Datatype stype, MPI_Count rcount,
                         MPI_Datatype rtype, int root, MPI_Comm comm)
{
    uint64_t down = (inplace ? 0 : u(rcount) * hprof_w_tsize(rtype));
    all_to_one(&b[HPROF_BYTES_RECEIVED], &b[HPROF_BYTES_SENT], inplace, down, scounts, 0,
               hprof_w_tsize(stype), root, comm);
}

void hprof_coll_alltoall(uint64_t *b, int inplace, MPI_Count scount, MPI_Datatype stype, MPI_Count rcount,
                         MPI_Datatype rtype, MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL)
        return;
    uint64_t n = (uint64_t)peers(comm);
    uint64_t rblock = u(rcount) * hprof_w_tsize(rtype);
    if (inplace) {
        b[HPROF_BYTES_SENT] += (n - 1) * rblock;
        b[HPROF_BYTES_RECEIVED] += (n - 1) * rblock;
    } else {
        b[HPROF_BYTES_SENT] += n * u(scount) * hprof_w_tsize(stype);
        b[HPROF_BYTES_RECEIVED] += n * rblock;
    }
}

void hprof_coll_allgather(uint64_t *b, int inplace, MPI_Count scount, MPI_Datatype stype, MPI_Count rcount,
                          MPI_Datatype rtype, MPI_Comm comm)
{
    hprof_coll_alltoall(b, inplace, scount, stype, rcount, rtype, comm);
}

void hprof_coll_allreduce(uint64_t *b, int inplace, MPI_Count count, MPI_Datatype dt, MPI_Comm comm)
{
    hprof_coll_alltoall(b, inplace, count, dt, count, dt, comm);
}

void hprof_coll_allgatherv(uint64_t *b, int inplace, MPI_Count scount, MPI_Datatype stype,
                           hprof_counts rcounts, MPI_Datatype rtype, MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL)
        return;
    int n = peers(comm);
    uint64_t rs = hprof_w_tsize(rtype), all = 0;
    for (int i = 0; i < n; i++)
        all += cnt(rcounts, i) * rs;
    if (inplace) {
        uint64_t mine = cnt(rcounts, my_rank(comm)) * rs;
        b[HPROF_BYTES_SENT] += (uint64_t)(n - 1) * mine;
        b[HPROF_BYTES_RECEIVED] += all - mine;
    } else {
        b[HPROF_BYTES_SENT] += (uint64_t)n * u(scount) * hprof_w_tsize(stype);
        b[HPROF_BYTES_RECEIVED] += all;
    }
}

void hprof_coll_alltoallv(uint64_t *b, int inplace, hprof_counts scounts, MPI_Datatype stype,
                          hprof_counts rcounts, MPI_Datatype rtype, MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL)
        return;
    int n = peers(comm);
    uint64_t rs = hprof_w_tsize(rtype), ss = hprof_w_tsize(stype), sall = 0, rall = 0;
    for (int i = 0; i < n; i++)
        rall += cnt(rcounts, i) * rs;
    if (inplace) {
        rall -= cnt(rcounts, my_rank(comm)) * rs;
        sall = rall;
    } else {
        for (int i = 0; i < n; i++)
            sall += cnt(scounts, i) * ss;
    }
    b[HPROF_BYTES_SENT] += sall;
    b[HPROF_BYTES_RECEIVED] += rall;
}

void hprof_coll_alltoallw(uint64_t *b, int inplace, hprof_counts scounts, hprof_types stypes,
                          hprof_counts rcounts, hprof_types rtypes, MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL)
        return;
    int n = peers(comm);
    uint64_t sall = 0, rall = 0;
    for (int i = 0; i < n; i++)
        rall += cnt(rcounts, i) * tsz(rtypes, i);
    if (inplace) {
        int me = my_rank(comm);
        rall -= cnt(rcounts, me) * tsz(rtypes, me);
        sall = rall;
    } else {
        for (int i = 0; i < n; i++)
            sall += cnt(scounts, i) * tsz(stypes, i);
    }
    b[HPROF_BYTES_SENT] += sall;
    b[HPROF_BYTES_RECEIVED] += rall;
}

void hprof_coll_reduce(uint64_t *b, int inplace, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    uint64_t block = u(count) * hprof_w_tsize(dt);
    all_to_one(&b[HPROF_BYTES_SENT], &b[HPROF_BYTES_RECEIVED], inplace, block, no_counts, u(count),
               hprof_w_tsize(dt), root, comm);
}

void hprof_coll_reduce_scatter_block(uint64_t *b, int inplace, MPI_Count rcount, MPI_Datatype dt,
                                     MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL)
        return;
    uint64_t n = (uint64_t)local_size(comm);
    uint64_t block = u(rcount) * hprof_w_tsize(dt);
    uint64_t v = (inplace ? n - 1 : n) * block;
    b[HPROF_BYTES_SENT] += v;
    b[HPROF_BYTES_RECEIVED] += v;
}

void hprof_coll_reduce_scatter(uint64_t *b, int inplace, hprof_counts rcounts, MPI_Datatype dt, MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL)
        return;
    int n = local_size(comm), me = my_rank(comm);
    uint64_t ts = hprof_w_tsize(dt), total = 0, mine = cnt(rcounts, me);
    for (int i = 0; i < n; i++)
        total += cnt(rcounts, i);
    if (is_inter(comm)) {
        b[HPROF_BYTES_SENT] += total * ts;
        b[HPROF_BYTES_RECEIVED] += (uint64_t)remote_size(comm) * mine * ts;
    } else if (inplace) {
        b[HPROF_BYTES_SENT] += (total - mine) * ts;
        b[HPROF_BYTES_RECEIVED] += (uint64_t)(n - 1) * mine * ts;
    } else {
        b[HPROF_BYTES_SENT] += total * ts;
        b[HPROF_BYTES_RECEIVED] += (uint64_t)n * mine * ts;
    }
}

void hprof_coll_scan(uint64_t *b, int inplace, MPI_Count count, MPI_Datatype dt, MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL)
        return;
    uint64_t n = (uint64_t)local_size(comm), me = (uint64_t)my_rank(comm);
    uint64_t block = u(count) * hprof_w_tsize(dt);
    if (inplace) {
        b[HPROF_BYTES_SENT] += (n - me - 1) * block;
        b[HPROF_BYTES_RECEIVED] += me * block;
    } else {
        b[HPROF_BYTES_SENT] += (n - me) * block;
        b[HPROF_BYTES_RECEIVED] += (me + 1) * block;
    }
}

void hprof_coll_exscan(uint64_t *b, MPI_Count count, MPI_Datatype dt, MPI_Comm comm)
{
    /* never sends to itself: the in-place scan pattern */
    hprof_coll_scan(b, 1, count, dt, comm);
}

/* Neighbourhood of comm: for a Cartesian topology the slots (2*dim, 2*dim+1)
 * whose neighbour is not MPI_PROC_NULL; for (dist) graphs in/out degree. */
#define HPROF_MAX_CART_DIMS 64
typedef struct {
    int cart; /* 1: use mask */
    int nslots;
    unsigned char live[2 * HPROF_MAX_CART_DIMS];
    int indeg, outdeg;
} neighbourhood;

static void neighbours(MPI_Comm comm, neighbourhood *nb)
{
    int topo = MPI_UNDEFINED;
    memset(nb, 0, sizeof *nb);
    if (comm == MPI_COMM_NULL || PMPI_Topo_test(comm, &topo) != MPI_SUCCESS)
        return;
    if (topo == MPI_CART) {
        int ndims = 0;
        PMPI_Cartdim_get(comm, &ndims);
        if (ndims > HPROF_MAX_CART_DIMS)
            ndims = HPROF_MAX_CART_DIMS;
        nb->cart = 1;
        nb->nslots = 2 * ndims;
        for (int d = 0; d < ndims; d++) {
            int lo = MPI_PROC_NULL, hi = MPI_PROC_NULL;
            PMPI_Cart_shift(comm, d, 1, &lo, &hi);
            nb->live[2 * d] = lo != MPI_PROC_NULL;
            nb->live[2 * d + 1] = hi != MPI_PROC_NULL;
            nb->indeg += nb->live[2 * d] + nb->live[2 * d + 1];
        }
        nb->outdeg = nb->indeg;
    } else if (topo == MPI_GRAPH) {
        int n = 0;
        PMPI_Graph_neighbors_count(comm, my_rank(comm), &n);
        nb->indeg = nb->outdeg = n;
    } else if (topo == MPI_DIST_GRAPH) {
        int weighted = 0;
        PMPI_Dist_graph_neighbors_count(comm, &nb->indeg, &nb->outdeg, &weighted);
    }
}

void hprof_coll_neighbor_alltoall(uint64_t *b, MPI_Count scount, MPI_Datatype stype, MPI_Count rcount,
                                  MPI_Datatype rtype, MPI_Comm comm)
{
    neighbourhood nb;
    neighbours(comm, &nb);
    b[HPROF_BYTES_SENT] += (uint64_t)nb.outdeg * u(scount) * hprof_w_tsize(stype);
    b[HPROF_BYTES_RECEIVED] += (uint64_t)nb.indeg * u(rcount) * hprof_w_tsize(rtype);
}

void hprof_coll_neighbor_allgather(uint64_t *b, MPI_Count scount, MPI_Datatype stype, MPI_Count rcount,
                                   MPI_Datatype rtype, MPI_Comm comm)
{
    hprof_coll_neighbor_alltoall(b, scount, stype, rcount, rtype, comm);
}

/* sum over the neighbour slots of counts[i] * size(i) */
static uint64_t slot_sum(const neighbourhood *nb, int degree, hprof_counts c, hprof_types t, uint64_t size)
{
    uint64_t s = 0;
    int n = nb->cart ? nb->nslots : degree;
    for (int i = 0; i < n; i++) {
        if (nb->cart && !nb->live[i])
            continue;
        s += cnt(c, i) * ((t.c || t.f) ? tsz(t, i) : size);
    }
    return s;
}

static const hprof_types no_types = { 0, 0 };

void hprof_coll_neighbor_allgatherv(uint64_t *b, MPI_Count scount, MPI_Datatype stype, hprof_counts rcounts,
                                    MPI_Datatype rtype, MPI_Comm comm)
{
    neighbourhood nb;
    neighbours(comm, &nb);
    b[HPROF_BYTES_SENT] += (uint64_t)nb.outdeg * u(scount) * hprof_w_tsize(stype);
    b[HPROF_BYTES_RECEIVED] += slot_sum(&nb, nb.indeg, rcounts, no_types, hprof_w_tsize(rtype));
}

void hprof_coll_neighbor_alltoallv(uint64_t *b, hprof_counts scounts, MPI_Datatype stype,
                                   hprof_counts rcounts, MPI_Datatype rtype, MPI_Comm comm)
{
    neighbourhood nb;
    neighbours(comm, &nb);
    b[HPROF_BYTES_SENT] += slot_sum(&nb, nb.outdeg, scounts, no_types, hprof_w_tsize(stype));
    b[HPROF_BYTES_RECEIVED] += slot_sum(&nb, nb.indeg, rcounts, no_types, hprof_w_tsize(rtype));
}

void hprof_coll_neighbor_alltoallw(uint64_t *b, hprof_counts scounts, hprof_types stypes,
                                   hprof_counts rcounts, hprof_types rtypes, MPI_Comm comm)
{
    neighbourhood nb;
    neighbours(comm, &nb);
    b[HPROF_BYTES_SENT] += slot_sum(&nb, nb.outdeg, scounts, stypes, 0);
    b[HPROF_BYTES_RECEIVED] += slot_sum(&nb, nb.indeg, rcounts, rtypes, 0);
}

/* ---- requests ------------------------------------------------------------ */

static inline uintptr_t req_key(MPI_Request r)
{
    uintptr_t k = 0;
    memcpy(&k, &r, sizeof r < sizeof k ? sizeof r : sizeof k);
    return k;
}

void hprof_w_req_track(MPI_Request r, unsigned flags, uint64_t sent, uint64_t recv)
{
    if (r == MPI_REQUEST_NULL)
        return;
    hprof_req_info info = { flags, sent, recv };
    (void)hprof_req_insert(req_key(r), &info); /* full table: untracked, counted there */
}

void hprof_w_req_complete(uint64_t *b, MPI_Request saved, const MPI_Status *st)
{
    hprof_req_info info;
    if (saved == MPI_REQUEST_NULL || !hprof_req_lookup(req_key(saved), &info))
        return;
    if (info.flags & HPROF_REQ_RECV)
        b[HPROF_BYTES_RECEIVED] += hprof_w_status_bytes(st);
    if (!(info.flags & HPROF_REQ_PERSISTENT))
        hprof_req_remove(req_key(saved));
}

void hprof_w_req_fcomplete(uint64_t *b, MPI_Request saved, const MPI_Fint *fst)
{
    MPI_Status st;
    if (PMPI_Status_f2c(fst, &st) == MPI_SUCCESS)
        hprof_w_req_complete(b, saved, &st);
}

void hprof_w_req_start(uint64_t *b, MPI_Request r)
{
    hprof_req_info info;
    if (r == MPI_REQUEST_NULL || !hprof_req_lookup(req_key(r), &info))
        return;
    b[HPROF_BYTES_SENT] += info.sent;
    b[HPROF_BYTES_RECEIVED] += info.recv;
}

void hprof_w_req_forget(MPI_Request r)
{
    if (r != MPI_REQUEST_NULL)
        hprof_req_remove(req_key(r));
}

/* ---- phases -------------------------------------------------------------- */

void hprof_w_phase(int level)
{
    timeline_phase(level, hprof_now_ns());
}
