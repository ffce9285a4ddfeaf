/*
 * profile_file.h - hands unified definitions to the CUBE writer: regions,
 * cnodes, the metrics of metrics.h and the system tree, then the
 * remapping spec (remapping_spec.h). Shared by the
 * cross-rank merge and the per-rank fallback file.
 */
#ifndef HPROF_PROFILE_FILE_H
#define HPROF_PROFILE_FILE_H

#include "report/cube/writer/cube_writer.h"
#include "report/profile/defs.h"

int profile_file_define(cube_writer *w, const defs *g, const char *const *nodes, int nnodes,
                        const cube_process_def *procs, int nprocs, const char *const *attr_keys,
                        const char *const *attr_values, int nattrs);

#endif
