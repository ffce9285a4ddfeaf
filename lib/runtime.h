/*
 * runtime.h - process-wide measurement state shared inside lib/.
 */
#ifndef HPROF_RUNTIME_H
#define HPROF_RUNTIME_H

#include "core/config.h"

/* 1 between a successful MPI_Init and the start of MPI_Finalize. */
extern volatile int hprof_active __attribute__((visibility("hidden")));
/* Per MPI function: 1 if its calls are timed and counted but not unwound. */
extern unsigned char *hprof_fn_nounwind __attribute__((visibility("hidden")));
/* The table index of MPI_Abort: its wrapper writes the fallback profile first. */
extern int hprof_abort_fn __attribute__((visibility("hidden")));

#endif
