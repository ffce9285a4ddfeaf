/*
 * fallback.h - the per-rank profile of a run that never reaches
 * MPI_Finalize (exit without it, MPI_Abort, a fatal signal, the launcher
 * killing the job). Written without any MPI communication, by this rank
 * alone, as a one-process CUBE4 file next to where the merged profile would
 * have gone: <name>.rank<R>.cubex. hprof-view reads it like any profile; its
 * attr hprof::partial says why it is partial.
 */
#ifndef HPROF_FALLBACK_H
#define HPROF_FALLBACK_H

/* Returns 0 and fills path (the file written), or -1 with err set. */
int fallback_write(int rank, int nranks, const char *output, const char *reason,
                   const char *const *attr_keys, const char *const *attr_values, int nattrs,
                   char *path, int pathlen, char *err, int errlen);

#endif
