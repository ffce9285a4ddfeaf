/*
 * interpose_floor.c - the least a tool that interposes MPI's polls can
 * cost: MPI_Test, MPI_Testany and MPI_Iprobe wrappers that count their
 * calls and call PMPI, nothing else (bench/run.py section 4b, LD_PRELOAD).
 * No time, no call path: what any wrapper-based profiler pays at least.
 */
#include <mpi.h>

static __thread unsigned long polls;

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    polls++;
    return PMPI_Test(request, flag, status);
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    polls++;
    return PMPI_Testany(count, requests, index, flag, status);
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    polls++;
    return PMPI_Iprobe(source, tag, comm, flag, status);
}
