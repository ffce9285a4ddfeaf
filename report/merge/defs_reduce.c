/* defs_reduce.c - the reduction of definitions and the ids sent back down. */
#include "report/merge/defs_reduce.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "report/cube/writer/cw_order.h"
#include "core/log.h"
#include "report/merge/quiet.h"

#define TAG_DEFS 4711
#define TAG_IDS 4712
#define TAG_COUNT 4714 /* the file's cnodes, beside the ids (4713: clock_align.c) */

#define MAX_KIDS 32 /* a rank's children in the binomial tree: log2(ranks) */

/* This rank's place in the reduction: who absorbed its definitions, and
 * where each child's cnodes landed among its own. */
typedef struct reduction {
    int parent; /* -1 on rank 0 */
    int nsent;  /* cnodes sent to the parent */
    int nkids;
    int kid_rank[MAX_KIDS];
    int *kid_map[MAX_KIDS]; /* kid's cnode -> this rank's; NULL: none placed */
    int kid_n[MAX_KIDS];
} reduction;

static void absorb_kid(reduction *red, defs *mine, int kid, const char *buf, size_t len)
{
    int k = red->nkids++;
    red->kid_rank[k] = kid;
    red->kid_map[k] = NULL;
    red->kid_n[k] = 0;
    if (len > 0 && defs_absorb_wire(mine, buf, len, &red->kid_map[k], &red->kid_n[k]) != 0)
        hprof_verbose(1, "could not unify the definitions of a subtree of ranks");
}

/* Children's definitions are added to `mine` (its own ids stay what they
 * were), so that after the loop rank 0 holds every rank's definitions. */
static void reduce_defs(MPI_Comm comm, int rank, int size, defs *mine, reduction *red)
{
    memset(red, 0, sizeof *red);
    red->parent = -1;
    for (int step = 1; step < size; step <<= 1) {
        if (rank & step) {
            char *buf = NULL;
            size_t len = 0;
            if (defs_serialize(mine, &buf, &len) != 0 || len > INT_MAX)
                len = 0; /* send nothing rather than leave the parent waiting */
            red->nsent = len ? mine->ncnodes : 0;
            red->parent = rank - step;
            quiet_send(buf, (int)len, MPI_BYTE, rank - step, TAG_DEFS,
                       comm); /* the parent may be absorbing another child */
            free(buf);
            return;
        }
        if (rank + step < size && red->nkids < MAX_KIDS) {
            MPI_Status st;
            int len;
            quiet_probe(rank + step, TAG_DEFS, comm, &st); /* the child may still be building its own */
            PMPI_Get_count(&st, MPI_BYTE, &len);
            char *buf = malloc(len > 0 ? (size_t)len : 1);
            PMPI_Recv(buf, len, MPI_BYTE, rank + step, TAG_DEFS, comm, MPI_STATUS_IGNORE);
            absorb_kid(red, mine, rank + step, buf, buf ? (size_t)(len > 0 ? len : 0) : 0);
            free(buf);
        }
    }
}

/* Rank 0: the file's cnode ids, which are preorder positions (the writer
 * numbers them so, cube_writer.h), so that chunks of consecutive ids are
 * consecutive rows. */
static int *preorder_ids(const defs *g)
{
    int n = g->ncnodes, *ids = NULL;
    int *parent = malloc(((size_t)n + 1) * sizeof(int));
    cw_forest f;
    for (int i = 0; parent && i < n; i++)
        parent[i] = g->cnodes[i].parent;
    if (parent && cw_forest_build(&f, parent, n, 0) == 0) {
        ids = f.pre_pos;
        f.pre_pos = NULL;
        cw_forest_free(&f);
    }
    free(parent);
    return ids;
}

/* The parent's answer to what this rank sent: the file id of each of its
 * cnodes (-1 each where the answer does not fit). */
static int *receive_ids(MPI_Comm comm, const reduction *red, int n)
{
    MPI_Status st;
    int count;
    quiet_probe(red->parent, TAG_IDS, comm, &st);
    PMPI_Get_count(&st, MPI_INT, &count);
    int *ids = malloc(((size_t)(count > n ? count : n) + 1) * sizeof(int));
    if (!ids) { /* take the message all the same: truncated, an error returned (see the merge) */
        char none;
        PMPI_Recv(&none, 0, MPI_BYTE, red->parent, TAG_IDS, comm, MPI_STATUS_IGNORE);
        return NULL;
    }
    PMPI_Recv(ids, count, MPI_INT, red->parent, TAG_IDS, comm, MPI_STATUS_IGNORE);
    int fits = count == n && red->nsent == n;
    for (int i = fits ? n : 0; i < n; i++)
        ids[i] = -1;
    return ids;
}

/* Every rank learns the file id of each of its cnodes: rank 0 numbers the
 * unified tree, and each rank translates the numbers for its children
 * through the maps it made while absorbing them. Only ids travel: no rank
 * but rank 0 ever holds the unified definitions. Returns the ids of mine's
 * cnodes (NULL: none known); *nglobal: cnodes in the file, which comes
 * down with the ids in a message of its own (it fits where the ids did
 * not; a broadcast after them was a round more). */
static int *ids_down(MPI_Comm comm, int rank, defs *mine, reduction *red, int *nglobal)
{
    int n = mine->ncnodes;
    int *ids = rank == 0 ? preorder_ids(mine) : NULL;
    *nglobal = rank == 0 && ids ? n : 0;
    if (rank != 0) {
        quiet_recv(nglobal, 1, MPI_INT, red->parent, TAG_COUNT, comm);
        ids = receive_ids(comm, red, n);
    }
    for (int k = red->nkids - 1; k >= 0; k--)
        quiet_send(nglobal, 1, MPI_INT, red->kid_rank[k], TAG_COUNT, comm);
    for (int k = red->nkids - 1; k >= 0; k--) {
        int kn = red->kid_map[k] && ids ? red->kid_n[k] : 0;
        int *kid_ids = malloc(((size_t)kn + 1) * sizeof(int));
        if (!kid_ids)
            kn = 0;
        for (int i = 0; i < kn; i++)
            kid_ids[i] = red->kid_map[k][i] >= 0 ? ids[red->kid_map[k][i]] : -1;
        quiet_send(kid_ids, kn, MPI_INT, red->kid_rank[k], TAG_IDS, comm);
        free(kid_ids);
        free(red->kid_map[k]);
    }
    return ids;
}

int *defs_reduce(MPI_Comm comm, defs *d, int *nglobal)
{
    int rank, size;
    reduction red;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    reduce_defs(comm, rank, size, d, &red);
    return ids_down(comm, rank, d, &red, nglobal);
}
