/*
 * exact_report.h - the functions measured exactly, for the profile's
 * attributes: one per function, key "hprof::exact::N", value
 *
 *     RANKS SINCE_MIN SINCE_MAX UNTIL MODULE NAME
 *
 * the ranks that measured it, when the first and the last of them patched
 * it in (seconds from the start of the measurement: 0 for a selection made
 * at MPI_Init; a library dlopen'ed later counts from then), when it was
 * patched out ("-": at the end), the base name of its ELF object (spaces
 * as '?') and its name (demangled; the rest of the value). Its calls
 * counted from SINCE on each rank: visits and exact_time cover that part
 * of the run. With HPROF_SELECT=auto (exact_auto.h) also
 *
 *     hprof::auto               "budget B% a visit MIN..MAX ns (R ranks)"
 *                               (the cost of a visit each rank measured)
 *     hprof::auto::dropped::K   "RANKS RATE COST MODULE NAME"
 *
 * for each function auto dropped: on how many ranks, its largest visit
 * rate (a second) and the share of the run that would have cost. Where
 * something selected measured nothing (exact.h's hprof_exact_unmeasured)
 *
 *     hprof::unmeasured         "WHAT (WHY), WHAT (WHY), ..."
 *
 * each name no rank measured a function for, with why ("not in the
 * program", "inlined everywhere", "no NOP area: ...": the first rank's),
 * each name whose functions no rank saw called ("never called": rank 0
 * also says it in a line), each HPROF_SELECT='...' or HPROF_FILTER='...'
 * that took no function ("selects nothing").
 */
#ifndef HPROF_EXACT_REPORT_H
#define HPROF_EXACT_REPORT_H

#include <mpi.h>

typedef void (*exact_report_fn)(void *ctx, const char *key, const char *value);

/* Collective over comm (PMPI only): rank 0 gets add() called for every
 * function some rank measured. comm MPI_COMM_NULL: this rank's alone, no
 * communication (the partial profile of a rank that dies). The count. */
int hprof_exact_report(MPI_Comm comm, exact_report_fn add, void *ctx);

#endif
