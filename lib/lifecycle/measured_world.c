/*
 * measured_world.c - hprof's communicator over the processes of
 * MPI_COMM_WORLD that measure (measured_world.h). PMPI_ calls only.
 */
#include "lib/lifecycle/measured_world.h"

#include <stdlib.h>

#include "lib/lifecycle/app_layout.h"
#include "core/log.h"
#include "lib/ending/run_marks.h"

/* hprof's own tag for MPI_Comm_create_group: the call is collective over
 * the measuring processes, all inside MPI_Init's wrapper. */
#define HPROF_GROUP_TAG 18512

static void facts(app_facts *f)
{
    int *appnum = NULL, flag = 0;
    MPI_Comm parent = MPI_COMM_NULL;
    PMPI_Comm_rank(MPI_COMM_WORLD, &f->rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &f->size);
    f->appnum = -1;
    if (PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag) == MPI_SUCCESS && flag && appnum)
        f->appnum = *appnum;
    f->spawned = PMPI_Comm_get_parent(&parent) == MPI_SUCCESS && parent != MPI_COMM_NULL;
    f->run_apps = getenv("HPROF_RUN_APPS");
    f->launcher_np = getenv("OMPI_APP_CTX_NUM_PROCS");
}

static MPI_Comm over_measured(const app_layout *l)
{
    static int ranges[APP_LAYOUT_MAX][3];
    MPI_Group world = MPI_GROUP_NULL, group = MPI_GROUP_NULL;
    MPI_Comm comm = MPI_COMM_NULL;
    int n = app_layout_ranges(l, ranges);
    if (PMPI_Comm_group(MPI_COMM_WORLD, &world) == MPI_SUCCESS &&
        PMPI_Group_range_incl(world, n, ranges, &group) == MPI_SUCCESS &&
        PMPI_Comm_create_group(MPI_COMM_WORLD, group, HPROF_GROUP_TAG, &comm) != MPI_SUCCESS)
        comm = MPI_COMM_NULL;
    if (group != MPI_GROUP_NULL)
        PMPI_Group_free(&group);
    if (world != MPI_GROUP_NULL)
        PMPI_Group_free(&world);
    return comm;
}

MPI_Comm measured_world_comm(void)
{
    static app_facts f;
    static app_layout l;
    facts(&f);
    app_layout_decide(&f, &l);
    MPI_Comm comm = MPI_COMM_NULL;
    hprof_log_set_rank(f.rank);
    if (l.verdict == APPS_UNKNOWN) {
        run_marks_foreign_init(l.note);
        return MPI_COMM_NULL;
    }
    if (l.verdict == APPS_ALL) {
        if (PMPI_Comm_dup(MPI_COMM_WORLD, &comm) != MPI_SUCCESS)
            comm = MPI_COMM_NULL;
    } else {
        comm = over_measured(&l);
    }
    if (comm == MPI_COMM_NULL) {
        hprof_say("cannot make hprof's communicator at start-up; measurement is off");
        return MPI_COMM_NULL;
    }
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    hprof_log_set_rank(rank);
    if (l.verdict == APPS_SOME)
        hprof_say("the profile leaves out %s: %s", l.note, app_layout_reason(&l));
    return comm;
}
