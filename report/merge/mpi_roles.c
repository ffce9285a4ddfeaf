/*
 * mpi_roles.c - Score-P's roles of MPI regions. The nonblocking (MPI_I...),
 * persistent (..._init) and large-count (..._c) variants of a collective
 * share the role of the blocking call.
 */
#include "mpi_roles.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const struct { const char *base, *role; } collective_roles[] = {
    { "Barrier", "barrier" },
    { "Bcast", "one2all" },       { "Scatter", "one2all" },     { "Scatterv", "one2all" },
    { "Gather", "all2one" },      { "Gatherv", "all2one" },     { "Reduce", "all2one" },
    { "Allgather", "all2all" },   { "Allgatherv", "all2all" },  { "Allreduce", "all2all" },
    { "Alltoall", "all2all" },    { "Alltoallv", "all2all" },   { "Alltoallw", "all2all" },
    { "Reduce_scatter", "all2all" }, { "Reduce_scatter_block", "all2all" },
};

/* "MPI_Ibcast_init_c" -> "Ibcast"; the caller then tries "bcast" too
 * (names compare without case: MPI_Ibarrier). */
static void collective_base(const char *name, char *base, size_t len)
{
    snprintf(base, len, "%s", strncmp(name, "MPI_", 4) == 0 ? name + 4 : name);
    size_t n = strlen(base);
    if (n > 2 && strcmp(base + n - 2, "_c") == 0)
        base[n -= 2] = '\0';
    if (n > 5 && strcmp(base + n - 5, "_init") == 0)
        base[n - 5] = '\0';
}

static const char *role_of_base(const char *base)
{
    for (size_t i = 0; i < sizeof collective_roles / sizeof *collective_roles; i++)
        if (strcasecmp(base, collective_roles[i].base) == 0)
            return collective_roles[i].role;
    return NULL;
}

const char *mpi_region_role(const char *name, const char *group)
{
    if (!name)
        return "function";
    char base[64];
    collective_base(name, base, sizeof base);
    const char *role = role_of_base(base);
    if (!role && base[0] == 'I')
        role = role_of_base(base + 1);
    if (role)
        return role;
    if (group && strcmp(group, "coll") == 0)
        return "collective";   /* scans, neighbourhood collectives */
    if (group && strcmp(group, "p2p") == 0)
        return "point2point";
    return "function";
}
