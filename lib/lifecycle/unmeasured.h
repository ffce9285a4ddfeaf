/*
 * unmeasured.h - MPI calls while the measurement is off. The lifecycle
 * (lib/lifecycle/lifecycle.c) keeps here how far the init wrappers got, so that
 * hprof_call_begin (lib/measure.c), a floor below the lifecycle, can tell
 * a call before MPI_Init from MPI initialised past hprof's init wrappers.
 */
#ifndef HPROF_UNMEASURED_H
#define HPROF_UNMEASURED_H

/* hprof_init_state: 0, then HPROF_INIT_STARTING while the thread that
 * opens the measurement opens it, then HPROF_INIT_STARTED (measured or
 * refused). Atomic accesses only. */
enum {
    HPROF_INIT_STARTING = 1,
    HPROF_INIT_STARTED = 2
};
extern int hprof_init_state __attribute__((visibility("hidden")));
/* > 0 while a Fortran init wrapper runs around its PMPI call (MPICH's
 * mpi_init_ calls the C MPI_Init, whose wrapper must not act). */
extern int hprof_init_nest __attribute__((visibility("hidden")));

/* Called by hprof_call_begin() for an MPI call while the measurement is
 * off: the first call that finds MPI initialised although no init wrapper
 * started the measurement says so, once (lib/ending/run_marks.h). */
void hprof_unmeasured(void);

#endif
