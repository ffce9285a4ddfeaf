/*
 * active.h - whether the measurement runs, the state every part of the
 * runtime reads (the wrappers' bookkeeping, the sampler, threads, exact
 * entries, the loader's watch, the fallback writer). Set by runtime.c as
 * the measurement starts and stops, and cleared by abandon.c; read on hot
 * paths as plain loads.
 */
#ifndef HPROF_ACTIVE_H
#define HPROF_ACTIVE_H

/* 1 between a successful MPI_Init and the start of MPI_Finalize. */
extern volatile int hprof_active __attribute__((visibility("hidden")));
/* Per MPI function: 1 if its calls are timed and counted but not unwound. */
extern unsigned char *hprof_fn_nounwind __attribute__((visibility("hidden")));
/* The table index of MPI_Abort: its wrapper writes the fallback profile first. */
extern int hprof_abort_fn __attribute__((visibility("hidden")));

#endif
