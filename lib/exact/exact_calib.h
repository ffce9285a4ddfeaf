/*
 * exact_calib.h - what one exactly measured visit costs on this machine,
 * measured at run time (HPROF_SELECT=auto, exact_auto.h): two functions
 * of hprof's own (exact_calib_code.c), built with a patchable entry, the
 * one patched into the entry trampoline as a selected function is, the
 * other left with its NOPs; each called in a loop, the difference of the
 * calling thread's CPU time per call is the cost of a visit (the
 * trampoline, the entry's walk-free half, the exit thunk, two clock
 * reads), the least of a few rounds.
 *
 * Runs on a thread that is no location of the profile (exact_tick's): for
 * the time of the loops it gets a call tree of its own, freed after, so
 * nothing of it reaches the profile. Not from signal handlers.
 */
#ifndef HPROF_EXACT_CALIB_H
#define HPROF_EXACT_CALIB_H

#include <stdint.h>

/* ns a visit (> 0), or a negative value where it could not be measured
 * (the functions have no patchable entry, no stub could be mapped near
 * them, their page could not be made writable); err then says why. id:
 * the exact_fn id it may use (exact_fn_reserve'd by the caller). */
double exact_calibrate(uint32_t id, char *err, int errlen);

#endif
