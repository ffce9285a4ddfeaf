/*
 * cr_values.h - decode one metric's <id>.index and <id>.data members
 * (sparse or dense index; CUBEX.DATA or ZCUBEX.DATA; either byte order)
 * into the metric's stored array.
 */
#ifndef HPROF_CR_VALUES_H
#define HPROF_CR_VALUES_H

#include <stddef.h>
#include "cube_reader.h"
#include "cr_tar.h"

/* Sets m->aggr and m->is_integer from m->dtype. Returns 0 if the dtype is
 * readable, -1 (and m->note) if not. */
int cr_dtype_setup(cube_metric *m);

/* Reads the metric's values. seq maps a row position to a cnode index.
 * Returns 0 (m->loaded set, or m->note when skipped) or -1 with a reason. */
int cr_load_values(const cube_profile *p, cube_metric *m, const cr_archive *a,
                   const unsigned char *buf, const int *seq, char *err, size_t errlen);

#endif
