/*
 * fortran_mpich.c - MPICH's MPI_IN_PLACE as mpif.h / use mpi pass it
 * (fortran_mpif.h). Empty for other MPI libraries.
 */
#include "wrappers/fortran_mpif.h"

#if defined(MPICH) && !defined(OPEN_MPI)

/* The Fortran library keeps the address of its MPI_IN_PLACE in
 * MPIR_F_MPI_IN_PLACE (0 until its MPI_INIT ran). lib is the mpif.h / use
 * mpi library (hprof_flib_mpif, always the same one): the generated
 * wrappers define it and pass it in, so that this file does not depend on
 * them. */
int hprof_f_is_in_place(hprof_flib *lib, const void *p)
{
    static void **addr; /* &MPIR_F_MPI_IN_PLACE of the Fortran library */
    void **a = __atomic_load_n(&addr, __ATOMIC_ACQUIRE);
    if (!a) {
        a = (void **)hprof_flib_sym(lib, "MPIR_F_MPI_IN_PLACE");
        if (!a)
            return 0;
        __atomic_store_n(&addr, a, __ATOMIC_RELEASE);
    }
    return *a && p == *a;
}

#endif
