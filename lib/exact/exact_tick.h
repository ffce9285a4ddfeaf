/*
 * exact_tick.h - a thread of hprof's own that calls a function at a fixed
 * period (or sooner when it asks) while exact measurement runs: the selections that read what the
 * run shows (calls, MPI paths) are evaluated again there (exact.c). It is
 * made with libc's pthread_create (neither measured nor sampled) with
 * every signal blocked, and only when such a selection is asked for.
 */
#ifndef HPROF_EXACT_TICK_H
#define HPROF_EXACT_TICK_H

#include <stdint.h>

/* 0, or -1 (no thread: the selection stays as MPI_Init found it). tick
 * returns when to call it next, in ns: 0 for period_ns. */
int exact_tick_start(uint64_t (*tick)(void), uint64_t period_ns);
/* No tick starts after this returns (one under way finishes). */
void exact_tick_stop(void);

#endif
