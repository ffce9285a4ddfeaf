/*
 * mpi_roles.c - Score-P's roles of MPI regions (as Score-P 9 writes them:
 * tests/unit/mpi_roles.sh compares every function both know). The
 * nonblocking (MPI_I...), persistent (..._init) and large-count (..._c)
 * variants share the role of the blocking call.
 */
#include "report/profile/mpi_roles.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

typedef struct named_role {
    const char *base, *role;
} named_role;

static const named_role collective_roles[] = {
    { "Barrier", "barrier" },
    { "Bcast", "one2all" },
    { "Scatter", "one2all" },
    { "Scatterv", "one2all" },
    { "Gather", "all2one" },
    { "Gatherv", "all2one" },
    { "Reduce", "all2one" },
    { "Allgather", "all2all" },
    { "Allgatherv", "all2all" },
    { "Allreduce", "all2all" },
    { "Alltoall", "all2all" },
    { "Alltoallv", "all2all" },
    { "Alltoallw", "all2all" },
    { "Reduce_scatter", "all2all" },
    { "Reduce_scatter_block", "all2all" },
    { "Neighbor_allgather", "all2all" },
    { "Neighbor_allgatherv", "all2all" },
    { "Neighbor_alltoall", "all2all" },
    { "Neighbor_alltoallv", "all2all" },
    { "Neighbor_alltoallw", "all2all" },
    { "Scan", "other collective" },
    { "Exscan", "other collective" },
    { "Reduce_local", "function" }, /* in the collective group, but local */
};

/* Other groups: only these differ from the group's own role. */
static const named_role exceptions[] = {
    { "Buffer_attach", "function" },
    { "Buffer_detach", "function" },
    { "Put", "rma" },
    { "Get", "rma" },
    { "Rput", "rma" },
    { "Rget", "rma" },
    { "Accumulate", "atomic" },
    { "Raccumulate", "atomic" },
    { "Get_accumulate", "atomic" },
    { "Rget_accumulate", "atomic" },
    { "Fetch_and_op", "atomic" },
    { "Compare_and_swap", "atomic" },
    { "Win_allocate", "allocate" },
    { "Win_allocate_shared", "allocate" },
    { "File_open", "file io metadata" },
    { "File_close", "file io metadata" },
    { "File_delete", "file io metadata" },
    { "File_seek", "file io metadata" },
    { "File_seek_shared", "file io metadata" },
    { "File_sync", "file io" },
};

/* "MPI_Ibcast_init_c" -> "Ibcast"; the caller then tries "bcast" too
 * (names compare without case: MPI_Ibarrier). */
static void base_name(const char *name, char *base, size_t len)
{
    snprintf(base, len, "%s", strncmp(name, "MPI_", 4) == 0 ? name + 4 : name);
    size_t n = strlen(base);
    if (n > 2 && strcmp(base + n - 2, "_c") == 0)
        base[n -= 2] = '\0';
    if (n > 5 && strcmp(base + n - 5, "_init") == 0)
        base[n - 5] = '\0';
}

static const char *lookup(const named_role *t, size_t n, const char *base)
{
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(base, t[i].base) == 0)
            return t[i].role;
    return NULL;
}

/* A role by base name, or by the base without its nonblocking I. */
static const char *lookup_variant(const named_role *t, size_t n, const char *base)
{
    const char *role = lookup(t, n, base);
    return !role && base[0] == 'I' ? lookup(t, n, base + 1) : role;
}

/* Every collective is in the table: the rest of the group (MPI_Op_create,
 * ...) are local calls, "function" as Score-P has them. */

/* MPI-IO's data access calls: read and write in all their forms. */
static int is_file_access(const char *base)
{
    return strncmp(base, "File_", 5) == 0 && (strstr(base, "read") || strstr(base, "write"));
}

const char *mpi_region_role(const char *name, const char *group)
{
    if (!name)
        return "function";
    char base[64];
    base_name(name, base, sizeof base);
    const char *role =
        lookup_variant(collective_roles, sizeof collective_roles / sizeof *collective_roles, base);
    if (!role)
        role = lookup_variant(exceptions, sizeof exceptions / sizeof *exceptions, base);
    if (role)
        return role;
    if (is_file_access(base))
        return "file io";
    if (group && strcmp(group, "p2p") == 0)
        return "point2point";
    return "function";
}
