/*
 * fn_table.h - the MPI function table, generated from wrappers/mpi_functions.txt.
 *
 * Index i of hprof_fn_table is the `fn` passed to hprof_call_begin(). The
 * generator writes the table (and a header of HPROF_FN_<name> ids that only
 * generated code includes) into the build folder.
 */
#ifndef HPROF_FN_TABLE_H
#define HPROF_FN_TABLE_H

/* flags */
#define HPROF_FN_NOUNWIND_DEFAULT \
    0x1u                   /* cheap local query: not unwound unless HPROF_NOUNWIND says otherwise */
#define HPROF_FN_POLL 0x2u /* a test or probe, which may complete nothing (lib/measure.c) */

typedef struct hprof_fn_info {
    const char *name;  /* C name, e.g. "MPI_Send" */
    const char *group; /* "p2p", "coll", "rma", "io", "comm", "type", "env", ... */
    unsigned flags;
} hprof_fn_info;

extern const hprof_fn_info hprof_fn_table[];
extern const int hprof_fn_count;

#endif
