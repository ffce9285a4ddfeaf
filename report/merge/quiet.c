/* quiet.c - test, then sleep a little longer each time. */
#include "quiet.h"

#include <time.h>

#define FIRST_NS 20000L
#define MOST_NS 1000000L

static void nap(long *ns)
{
    struct timespec ts = { 0, *ns };
    nanosleep(&ts, NULL);
    if (*ns < MOST_NS)
        *ns = *ns * 2 < MOST_NS ? *ns * 2 : MOST_NS;
}

void quiet_wait(MPI_Request *req)
{
    long ns = FIRST_NS;
    for (int done = 0;;) {
        if (PMPI_Test(req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || done)
            return;
        nap(&ns);
    }
}

void quiet_bcast_ints(int *v, int n, MPI_Comm comm)
{
    MPI_Request req;
    if (PMPI_Ibcast(v, n, MPI_INT, 0, comm, &req) == MPI_SUCCESS)
        quiet_wait(&req);
}

void quiet_probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    long ns = FIRST_NS;
    for (int found = 0;;) {
        if (PMPI_Iprobe(source, tag, comm, &found, status) != MPI_SUCCESS)
            break;
        if (found)
            return;
        nap(&ns);
    }
    PMPI_Probe(source, tag, comm, status);
}
