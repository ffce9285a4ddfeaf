/* sysmain.c - calls syslib.c's sys_sync (tests/mpi/symbols_system_lines.sh). */
#include <mpi.h>

void sys_sync(void);

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int i = 0; i < 3; i++)
        sys_sync();
    MPI_Finalize();
    return 0;
}
