/* syslib.c - a library with line information whose MPI call site is
 * checked from a system directory and from the test's own
 * (tests/mpi/symbols_system_lines.sh). */
#include <mpi.h>

void sys_sync(void)
{
    MPI_Barrier(MPI_COMM_WORLD); /* the call site */
}
