/*
 * nounwind.h - which MPI functions are timed and counted without a call
 * path: HPROF_NOUNWIND, a comma list of MPI function names, group names
 * (p2p, coll, ...), `default` (the cheap local queries flagged in the
 * function list), `all` or `none`. Unset: the default set.
 */
#ifndef HPROF_NOUNWIND_H
#define HPROF_NOUNWIND_H

/* One flag per entry of hprof_fn_table; never NULL unless out of memory. */
unsigned char *nounwind_parse(const char *spec);

#endif
