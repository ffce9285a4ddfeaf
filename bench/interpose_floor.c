/*
 * interpose_floor.c - the least a tool that interposes MPI's polls can
 * cost: MPI_Test, MPI_Testany and MPI_Iprobe wrappers that count their
 * calls and call PMPI, nothing else (bench/run.py sections 1 and 4b,
 * LD_PRELOAD). No time, no call path: what any wrapper-based profiler
 * pays at least.
 *
 * The counter is thread-local in the initial-exec model, as hprof's own
 * thread pointer is: the default model of a shared library calls
 * __tls_get_addr at every access, which alone cost +12 ns a poll in
 * `callcost mempolls` and made this floor look three times what it is.
 * Each wrapper compiles to an add and a jump into PMPI.
 */
#include <mpi.h>

static __thread unsigned long polls __attribute__((tls_model("initial-exec")));

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
