/*
 * fortran_libs.h - the MPI library's Fortran libraries, loaded when a
 * Fortran wrapper finds its target missing.
 *
 * Each Fortran wrapper forwards to the library's own profiling entry
 * (pmpi_xxx_, or the mpi_f08 one), declared weak: libhprof never needs the
 * Fortran MPI library at link time. In a program relinked with -lhprof,
 * libhprof defines every mpi_xxx_ symbol, so a linker using --as-needed (the
 * default here) drops the Fortran MPI library from the program and the weak
 * references stay NULL. The library is then loaded once, at the first
 * Fortran MPI call (normally MPI_INIT), and the entries are looked up.
 * No lock: threads that race both dlopen (reference-counted), and the
 * handle is published atomically.
 */
#ifndef HPROF_FORTRAN_LIBS_H
#define HPROF_FORTRAN_LIBS_H

typedef struct hprof_flib {
    const char *const *names; /* soname, path, soname, path, ..., NULL: as the probe found them */
    void *handle;             /* the first of them that opened */
} hprof_flib;

/* The address of name in lib, which is opened first if need be; NULL when
 * none of its names opens or it lacks name. */
void *hprof_flib_sym(hprof_flib *lib, const char *name);

/* The libraries of the mpif.h / use mpi bindings and of the use mpi_f08
 * ones: defined by the generated wrappers_f.c and wrappers_f08.c
 * (wrappers/gen_wrappers.py). */
extern hprof_flib hprof_flib_mpif, hprof_flib_f08;

#endif
