/*
 * output_name.h - where the profile goes: HPROF_OUTPUT if given (the user
 * named it, so it may be replaced), else a new name in the working
 * directory that no existing file has.
 */
#ifndef HPROF_OUTPUT_NAME_H
#define HPROF_OUTPUT_NAME_H

#include <stddef.h>

#include "cube_writer.h"

/* Creates the writer for the profile; on failure, err holds one line. */
cube_writer *output_create(const char *hprof_output, int nprocs, char *path, size_t pathlen,
                           char *err, size_t errlen);

#endif
