/*
 * runtime.h - process-wide measurement state shared inside lib/.
 */
#ifndef HPROF_RUNTIME_H
#define HPROF_RUNTIME_H

#include "config.h"

/* 1 between a successful MPI_Init and the start of MPI_Finalize. */
extern volatile int hprof_active;
/* Per MPI function: 1 if its calls are timed and counted but not unwound. */
extern unsigned char *hprof_fn_nounwind;
/* The table index of MPI_Abort: its wrapper writes the fallback profile first. */
extern int hprof_abort_fn;

#endif
