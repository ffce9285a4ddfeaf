/*
 * unmeasured.c - MPI calls while the measurement is off (unmeasured.h).
 */
#include "lib/lifecycle/unmeasured.h"

#include <mpi.h>

#include "core/log.h"
#include "lib/ending/run_marks.h"

int hprof_init_state, hprof_init_nest;

void hprof_unmeasured(void)
{
    static int checked;
    if (__atomic_load_n(&hprof_init_state, __ATOMIC_RELAXED) || __atomic_load_n(&checked, __ATOMIC_RELAXED) ||
        __atomic_load_n(&hprof_init_nest, __ATOMIC_SEQ_CST) > 0)
        return;
    int flag = 0;
    if (PMPI_Initialized(&flag) != MPI_SUCCESS || !flag)
        return; /* a call before MPI_Init (MPI_Initialized, ...): look again at the next */
    __atomic_store_n(&checked, 1, __ATOMIC_RELAXED);
    int rank = 0;
    if (PMPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS)
        hprof_log_set_rank(rank);
    run_marks_foreign_init("MPI was initialised without passing through hprof's MPI_Init wrappers "
                           "(PMPI_Init called directly, or through a binding hprof does not wrap)");
}
