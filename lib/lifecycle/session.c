/*
 * session.c - hprof's own MPI session and its communicator (session.h).
 * All calls are PMPI_ calls: none of this is measured. Built against an MPI
 * library without sessions (MPI < 4, e.g. Open MPI 4.1) it only says so;
 * its wrappers are not generated there, so nothing calls it.
 */
#include "lib/lifecycle/session.h"

#if MPI_VERSION >= 4

#include <stdio.h>
#include <stdlib.h>

#include "lib/lifecycle/app_layout.h"

/* The string tag of MPI_Comm_create_from_group: hprof's own, so that it
 * cannot meet a tag of the program's. */
#define HPROF_SESSION_TAG "org.hprof.measurement"

static MPI_Session own = MPI_SESSION_NULL;
static MPI_Comm comm = MPI_COMM_NULL;

/* NULL when every process of mpi://WORLD measures, else why hprof cannot
 * go on: an MPMD launch with parts hprof-run could not preload
 * (app_layout.h). Their processes never join hprof's communicator, and one
 * over the others cannot be made from a session (MPICH 4.0's
 * MPI_Comm_create_from_group asserts on any group but mpi://WORLD's and
 * mpi://SELF's). */
static const char *not_all_measure(MPI_Group group)
{
    static app_layout l;
    static char why[sizeof l.note + 200];
    app_facts f = { 0, 1, -1, 0, getenv("HPROF_RUN_APPS"), getenv("OMPI_APP_CTX_NUM_PROCS") };
    PMPI_Group_rank(group, &f.rank);
    PMPI_Group_size(group, &f.size);
    app_layout_decide(&f, &l);
    if (l.verdict == APPS_ALL)
        return NULL;
    if (l.verdict == APPS_UNKNOWN)
        return l.note;
    snprintf(why, sizeof why,
             "the launch has processes without hprof: %s (%s), and a program that uses only "
             "sessions gives hprof no communicator over the others",
             l.note, app_layout_reason(&l));
    return why;
}

MPI_Comm hprof_session_open(const char **why)
{
    MPI_Group group = MPI_GROUP_NULL;
    /* MPI_ERRORS_RETURN: a refusal is a message, never the end of the program. */
    if (PMPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &own) != MPI_SUCCESS) {
        own = MPI_SESSION_NULL;
        *why = "MPI_Session_init for hprof's own session failed";
        return MPI_COMM_NULL;
    }
    if (PMPI_Group_from_session_pset(own, "mpi://WORLD", &group) != MPI_SUCCESS) {
        group = MPI_GROUP_NULL;
        *why = "MPI_Group_from_session_pset(\"mpi://WORLD\") failed";
    } else if ((*why = not_all_measure(group)) != NULL) {
        comm = MPI_COMM_NULL;
    } else if (PMPI_Comm_create_from_group(group, HPROF_SESSION_TAG, MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                           &comm) != MPI_SUCCESS) {
        comm = MPI_COMM_NULL;
        *why = "MPI_Comm_create_from_group over mpi://WORLD failed";
    }
    if (group != MPI_GROUP_NULL)
        PMPI_Group_free(&group);
    if (comm == MPI_COMM_NULL) {
        PMPI_Session_finalize(&own);
        own = MPI_SESSION_NULL;
    }
    return comm;
}

void hprof_session_close(void)
{
    if (comm != MPI_COMM_NULL)
        PMPI_Comm_free(&comm);
    if (own != MPI_SESSION_NULL)
        PMPI_Session_finalize(&own);
    comm = MPI_COMM_NULL;
    own = MPI_SESSION_NULL;
}

#else

MPI_Comm hprof_session_open(const char **why)
{
    *why = "the MPI library has no sessions (MPI < 4)";
    return MPI_COMM_NULL;
}

void hprof_session_close(void)
{
}

#endif
