/*
 * fortran_f08.h - what the use mpi_f08 wrappers (the generated
 * wrappers_f08.c, wrappers/gen_f08.py) need of the MPI library beyond
 * mpi.h: how MPI_IN_PLACE and MPI_STATUS(ES)_IGNORE of the mpi_f08 module
 * arrive, and the library's own mpi_f08 entries.
 *
 * Each mpi_f08 wrapper forwards to the library's own profiling entry (weak,
 * found by hprof_f_sym() when missing: fortran_libs.h). C MPI_ functions
 * the library calls from there reach our C wrappers nested in this call and
 * pass through unmeasured.
 *
 * The flavour is the one mpi.h names (OPEN_MPI, MPICH), which is what
 * wrappers/probe_mpi.py reads too.
 */
#ifndef HPROF_FORTRAN_F08_H
#define HPROF_FORTRAN_F08_H

#include <mpi.h>
#include <stddef.h>

#include "wrappers/fortran_libs.h"

#ifndef MPI_F_STATUS_SIZE /* Open MPI: the Fortran MPI_STATUS_SIZE */
#define MPI_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#endif

static inline void *hprof_f_sym(const char *name)
{
    return hprof_flib_sym(&hprof_flib_f08, name);
}

#if defined(OPEN_MPI)
/* Open MPI's mpi_f08 module binds MPI_IN_PLACE and MPI_STATUS(ES)_IGNORE
 * to the very objects of mpif.h (its f08 layer calls the mpif.h code). */
extern char mpi_fortran_in_place_[] __attribute__((weak));
#define HPROF_F_IS_IN_PLACE(p) (mpi_fortran_in_place_ && (void *)(p) == (void *)mpi_fortran_in_place_)
#define HPROF_FST_IGNORE MPI_F_STATUS_IGNORE
#define HPROF_FSTS_IGNORE MPI_F_STATUSES_IGNORE
#elif defined(MPICH)
/* a TYPE(MPI_Status) is read as an mpif.h status */
_Static_assert(sizeof(MPI_F08_status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint) &&
                   offsetof(MPI_F08_status, MPI_SOURCE) == MPI_F_SOURCE * sizeof(MPI_Fint),
               "MPI_F08_status is not an mpif.h status");
/* choice buffers arrive as descriptors: the base address comes first */
#define HPROF_F_IS_IN_PLACE(p) ((p) && *(void *const *)(p) == (void *)&MPIR_F08_MPI_IN_PLACE)
#define HPROF_FST_IGNORE ((MPI_Fint *)MPI_F08_STATUS_IGNORE)
#define HPROF_FSTS_IGNORE ((MPI_Fint *)MPI_F08_STATUSES_IGNORE)
#else
#define HPROF_F_IS_IN_PLACE(p) ((void)(p), 0) /* unknown MPI: in-place not detected */
#define HPROF_FST_IGNORE ((MPI_Fint *)0)
#define HPROF_FSTS_IGNORE ((MPI_Fint *)0)
#endif

#endif
