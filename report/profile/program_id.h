/*
 * program_id.h - what the profiled program is called: the name of the call
 * tree's root region (the program's basename, as Score-P names it) and the
 * full command line kept beside it.
 */
#ifndef HPROF_PROGRAM_ID_H
#define HPROF_PROGRAM_ID_H

#include <stddef.h>

/* The basename the program was started as ("app" if unknown). */
const char *program_basename(void);
/* /proc/self/cmdline with its arguments joined by spaces ("" if unreadable). */
void program_command_line(char *buf, size_t len);
/* From now on both answer the job's: the programs of an MPMD launch
 * ("a : b") and their command lines (program_agree.h). */
void program_id_set(const char *basename, const char *command_line);

#endif
