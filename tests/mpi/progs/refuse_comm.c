/* refuse_comm.c - preloaded after libhprof by mpi_sessions.sh: an MPI
 * library that refuses MPI_Comm_create_from_group for every string tag but
 * the test program's own ("hprof.test.session"), so that hprof's own
 * communicator cannot be had and its fallback (one line, no profile) shows. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <string.h>

int PMPI_Comm_create_from_group(MPI_Group group, const char *tag, MPI_Info info, MPI_Errhandler errhandler,
                                MPI_Comm *newcomm)
{
    int (*real)(MPI_Group, const char *, MPI_Info, MPI_Errhandler, MPI_Comm *);
    if (strcmp(tag, "hprof.test.session") != 0)
        return MPI_ERR_OTHER;
    *(void **)&real = dlsym(RTLD_NEXT, "PMPI_Comm_create_from_group");
    return real ? real(group, tag, info, errhandler, newcomm) : MPI_ERR_OTHER;
}
