/*
 * output_name.h - where the profile goes: HPROF_OUTPUT if given (the user
 * named it, so a regular file there is replaced; nothing else ever is), else a new name in the working
 * directory that no existing file has; spawned jobs get names of their own.
 */
#ifndef HPROF_OUTPUT_NAME_H
#define HPROF_OUTPUT_NAME_H

#include <stddef.h>

#include "report/cube/writer/cube_writer.h"

/* This job was started by MPI_Comm_spawn: its profile gets a name of its
 * own, never its parent's: hprof-<prog>-<P>p.<tag>.cubex, or, when
 * HPROF_OUTPUT names the parent's, <HPROF_OUTPUT without .cubex>.<prog>.<tag>.cubex
 * (both never replaced: .1, .2, ... when taken). */
void output_name_set_spawn(const char *tag);

/* -1 with err set when HPROF_OUTPUT names something that is neither a
 * regular file nor a symbolic link (a device node, a FIFO, a socket, a
 * directory): then
 * no profile is written, nor any whose name derives from it (a spawned
 * job's, the partial .rank<R> ones), so nothing new lands beside a device. */
int output_refused(const char *hprof_output, char *err, size_t errlen);

/* Creates the writer for the profile; on failure, err holds one line. A
 * commit that had to move on to a numbered name writes it into path. */
cube_writer *output_create(const char *hprof_output, int nprocs, char *path, size_t pathlen, char *err,
                           size_t errlen);

#endif
