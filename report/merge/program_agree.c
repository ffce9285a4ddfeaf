/*
 * program_agree.c - the job's program name and command line (program_agree.h).
 * Rank 0's command's digest goes to every rank; only the ranks whose own
 * differs send their command back, and rank 0 joins the distinct ones in
 * rank order.
 */
#include "report/merge/program_agree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/profile/program_id.h"
#include "report/merge/quiet.h"

#define ID_LEN 4096 /* "basename\ncommand line" of one rank */
#define JOINED_LEN 4096

/* "basename\ncommand line" */
static void own_id(char *id)
{
    char cmd[ID_LEN - 256];
    program_command_line(cmd, sizeof cmd);
    snprintf(id, ID_LEN, "%.255s\n%s", program_basename(), cmd);
}

/* Appends part to list (" : " between) unless it is there already. */
static void add_distinct(char *list, const char *part, size_t partlen)
{
    size_t n = strlen(list);
    for (const char *p = list; *p;) {
        const char *end = strstr(p, " : ");
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == partlen && strncmp(p, part, partlen) == 0)
            return;
        p = end ? end + 3 : p + len;
    }
    if (n + partlen + 4 < JOINED_LEN)
        snprintf(list + n, JOINED_LEN - n, "%s%.*s", n ? " : " : "", (int)partlen, part);
}

/* On rank 0: the distinct names and command lines of ids (NUL-separated),
 * its own first, into names and cmds. */
static void join_ids(const char *ids, int total, char *names, char *cmds)
{
    names[0] = cmds[0] = '\0';
    for (const char *p = ids; p < ids + total; p += strlen(p) + 1) {
        const char *nl = strchr(p, '\n');
        if (!nl)
            continue;
        add_distinct(names, p, (size_t)(nl - p));
        add_distinct(cmds, nl + 1, strlen(nl + 1));
    }
}

/* Gathers the differing ids at rank 0, with rank 0's own first; returns
 * the joined "names\ncommands" there (malloc'd), NULL elsewhere. */
static char *gather_distinct(MPI_Comm comm, int rank, int size, const char *mine, int differs)
{
    int len = differs || rank == 0 ? (int)strlen(mine) + 1 : 0;
    int *lens = rank == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
    int *displs = rank == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
    char *ids = NULL, *joined = NULL;
    quiet_gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, comm);
    int total = 0;
    if (rank == 0 && lens && displs) {
        for (int r = 0; r < size; r++) {
            displs[r] = total;
            total += lens[r];
        }
        ids = malloc((size_t)total + 1);
    }
    quiet_gatherv(mine, len, MPI_CHAR, ids, lens, displs, MPI_CHAR, 0, comm);
    if (rank == 0 && ids) {
        static char names[JOINED_LEN], cmds[JOINED_LEN];
        join_ids(ids, total, names, cmds);
        size_t n = strlen(names) + strlen(cmds) + 2;
        joined = malloc(n);
        if (joined)
            snprintf(joined, n, "%s\n%s", names, cmds);
    }
    free(ids);
    free(lens);
    free(displs);
    return joined;
}

/* FNV-1a: ranks compare their commands by an 8-byte digest */
static unsigned long long digest(const char *s)
{
    unsigned long long h = 14695981039346656037ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

void program_agree(MPI_Comm comm)
{
    static char mine[ID_LEN];
    int rank = 0, size = 1;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    own_id(mine);
    unsigned long long h = digest(mine), first = h;
    quiet_bcast(&first, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
    int differs = first != h, any = 0;
    quiet_allreduce(&differs, &any, 1, MPI_INT, MPI_MAX, comm);
    if (!any)
        return; /* one command: every rank's root is its own, the same */
    static char text[2 * JOINED_LEN + 2];
    char *joined = gather_distinct(comm, rank, size, mine, differs);
    int len = 0;
    if (rank == 0 && joined) {
        snprintf(text, sizeof text, "%s", joined);
        len = (int)strlen(text) + 1;
    }
    free(joined);
    quiet_bcast(&len, 1, MPI_INT, 0, comm);
    if (len <= 0)
        return; /* rank 0 ran out of memory: each keeps its own */
    quiet_bcast(text, len, MPI_CHAR, 0, comm);
    text[len - 1] = '\0';
    char *nl = strchr(text, '\n');
    if (nl) {
        *nl = '\0';
        program_id_set(text, nl + 1);
    }
}
