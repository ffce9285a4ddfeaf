/*
 * exact.h - functions measured exactly, patched in at run time (issue 29).
 *
 * A program built with -fpatchable-function-entry=18,16 (exact_sites.h)
 * has a NOP area at every function's entry. When a selection is asked for
 * (exact_select.h), hprof_exact_start finds the areas of the program and
 * of every shared library loaded (and, later, of each library dlopen
 * adds: at the first dlsym after it, or the next walk that finds the
 * loader's list changed), patches the selected functions' areas into a
 * call of the entry trampoline (exact_patch.h, exact_entry.h), and from
 * then on each of their calls is a node of the thread's call tree with
 * exact visits and time (CCT_EXACT_*; the return through the exit thunk,
 * unwind/exact_stack.h). hprof_exact_stop, at the end of the window,
 * closes the calls under way on the calling thread and unpatches.
 *
 * Without a selection nothing is read or patched. A selection the program
 * cannot serve (no patchable entries, a CET shadow stack) gets one line.
 */
#ifndef HPROF_EXACT_H
#define HPROF_EXACT_H

#include <stdint.h>

/* At the start of the measurement (MPI_Init), after the window opened at
 * window_start_ns. Not from signal handlers. */
void hprof_exact_start(uint64_t window_start_ns);
/* At the end of the window (MPI_Finalize), now_ns its end. */
void hprof_exact_stop(uint64_t now_ns);

/* The functions measured on this rank, for the profile: count, and each
 * one's name (demangled), module, and when it was patched (ns since the
 * window's start) and unpatched (0: at the end). */
typedef struct exact_measured {
    const char *name, *module;
    uint64_t since_ns, until_ns;
    double dropped_rate, dropped_cost; /* HPROF_SELECT=auto dropped it: its visits a second, the share of the
                                        * run they would cost (0: not dropped) */
} exact_measured;
int hprof_exact_measured(exact_measured *out, int max);

/* What was selected and measured nothing (issue 38.3), for the profile:
 * each name asked for (HPROFTEST_EXACT's, those HPROF_SELECT and
 * HPROF_FILTER name literally: exact_select.h) that no function has, with why
 * (exact_absent.h: "not in the program", "inlined everywhere", ...); each
 * expression (HPROF_SELECT, HPROF_FILTER) that took no function ("selects
 * nothing"); and each name that took some, why NULL, with their visits
 * on this rank (UINT64_MAX: not known), after hprof_exact_stop. Up to max
 * into out (strings valid to the end of the run); the count. */
typedef struct exact_unmeasured {
    const char *var; /* the variable that asked: "HPROFTEST_EXACT", "HPROF_SELECT", "HPROF_FILTER" */
    const char *what, *why;
    uint64_t visits;
} exact_unmeasured;
int hprof_exact_unmeasured(exact_unmeasured *out, int max);

/* HPROF_SELECT=auto: 1 (and the cost of a visit measured, ns, 0 before
 * the warm-up's end, < 0 not measurable; the budget, a share of the
 * run), or 0 when it was not asked for. */
int hprof_exact_auto_info(double *visit_ns, double *budget);

#endif
