/*
 * fortran_mpif.h - what the mpif.h / use mpi wrappers (the generated
 * wrappers_f.c) need of the MPI library beyond mpi.h: the size of a Fortran
 * status, the STATUS(ES)_IGNORE sentinels, how MPI_IN_PLACE arrives, and
 * the library's own Fortran entries.
 *
 * Each Fortran binding forwards to the MPI library's own Fortran profiling
 * entry pmpi_xxx_ (declared weak, found by hprof_f_sym() when missing:
 * fortran_libs.h). The C MPI_ functions the library calls from there reach
 * our C wrappers nested in this call, so they pass through unmeasured.
 *
 * The flavour is the one mpi.h names (OPEN_MPI, MPICH), which is what
 * wrappers/probe_mpi.py reads too.
 */
#ifndef HPROF_FORTRAN_MPIF_H
#define HPROF_FORTRAN_MPIF_H

#include <mpi.h>

#include "wrappers/fortran_libs.h"

#ifndef MPI_F_STATUS_SIZE /* Open MPI: the Fortran MPI_STATUS_SIZE */
#ifdef OMPI_FORTRAN_STATUS_SIZE
#define MPI_F_STATUS_SIZE OMPI_FORTRAN_STATUS_SIZE
#else
#define MPI_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#endif
#endif
#define HPROF_FST_IGNORE MPI_F_STATUS_IGNORE
#define HPROF_FSTS_IGNORE MPI_F_STATUSES_IGNORE

static inline void *hprof_f_sym(const char *name)
{
    return hprof_flib_sym(&hprof_flib_mpif, name);
}

#if defined(OPEN_MPI)
/* the mpif.h COMMON block MPI_IN_PLACE lives in */
extern char mpi_fortran_in_place_[] __attribute__((weak));
#define HPROF_F_IS_IN_PLACE(p) (mpi_fortran_in_place_ && (void *)(p) == (void *)mpi_fortran_in_place_)
#elif defined(MPICH)
/* fortran_mpich.c */
int hprof_f_is_in_place(hprof_flib *lib, const void *p);
#define HPROF_F_IS_IN_PLACE(p) hprof_f_is_in_place(&hprof_flib_mpif, p)
#else
#define HPROF_F_IS_IN_PLACE(p) ((void)(p), 0) /* unknown MPI: in-place not detected */
#endif

#endif
