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

/* Can output's folder take a profile at all? -1 with err set (the folder
 * and why) when it certainly cannot: not writable, less free space than
 * the smallest profile takes, or output names no regular file (a device
 * node, a FIFO, ...: output_name.h). Cheap (two system calls): a dying rank asks
 * before it says what becomes of its profile. 0 does not promise success. */
int fallback_check_room(const char *output, char *err, int errlen);

/* The partial profiles' names before .rank<R>: output without .cubex, or
 * hprof-<program>-<nranks>p in the working directory; its last component
 * shortened where <stem>.rank<R>.<N>.cubex would pass NAME_MAX. */
void fallback_stem(const char *output, int nranks, char *stem, int len);

#include "report/profile/snapshot.h"

/* The profile of the snapshot (snapshot.h). Returns 0 and fills path (the
 * file written), or -1 with err set. */
int fallback_write(const hprof_snapshot *snapshot, int rank, int nranks, const char *output,
                   const char *reason, const char *const *attr_keys, const char *const *attr_values,
                   int nattrs, char *path, int pathlen, char *err, int errlen);

#endif
