/*
 * cr_values.h - decode one metric's <id>.index and <id>.data members
 * (sparse or dense index; CUBEX.DATA or ZCUBEX.DATA; either byte order)
 * into the metric's stored array.
 */
#ifndef HPROF_CR_VALUES_H
#define HPROF_CR_VALUES_H

#include <stddef.h>
#include "report/cube/reader/cube_model.h"
#include "report/cube/reader/cr_tar.h"

/* Sets m->aggr and m->is_integer from m->dtype. Returns 0 if the dtype is
 * readable, -1 (and m->note) if not. */
int cr_dtype_setup(cube_metric *m);

/* zlib's (deflate's) largest expansion: 258 bytes from 2 bits, about
 * 1032 to 1. A file never honestly holds more than this times its size. */
#define CR_ZLIB_MAX_RATIO 1032

/* 1 if the archive holds the metric's index or data (Cube leaves both out
 * for a metric that is zero everywhere). */
int cr_has_values(const cr_archive *a, const cube_metric *m);

/* Decodes the metric's rows one at a time (seq maps a row position to a
 * cnode index); rows the file leaves out are zero and not passed. Memory:
 * one row. fn NULL: only the index and the sizes are checked (nothing is
 * inflated). Returns 0, or -1 with a reason when the data is bad. */
int cr_scan_values(const cube_profile *p, const cube_metric *m, const cr_archive *a, const unsigned char *buf,
                   const int *seq, cube_row_fn fn, void *ctx, char *err, size_t errlen);

/* Reads the metric's values into vals (cnodes x locations, zeroed), which
 * becomes m->excl or m->incl. Returns 0 (m->loaded set) or -1 with a reason. */
int cr_load_values(const cube_profile *p, cube_metric *m, const cr_archive *a, const unsigned char *buf,
                   const int *seq, double *vals, char *err, size_t errlen);

#endif
