/*
 * cube_reader.h - load a CUBE4 (.cubex) profile into memory.
 *
 * Reads the tar archive (plain ustar/GNU, tolerating the Cube 4.8 header
 * checksum bug), anchor.xml (plain or gzip-compressed, parsed with expat)
 * and every metric's <id>.index / <id>.data (CUBEX.DATA or ZCUBEX.DATA,
 * sparse or dense index, either byte order). The input is untrusted: every
 * size is bounded before use and problems give a one-line error.
 *
 * cube_open() reads the definitions and checks the archive; metric values
 * are decoded on demand (cube_load_metric, or cube_load_all which uses a
 * few threads), so a view pays only for the metrics it shows. A loaded
 * metric holds both its exclusive and its inclusive value for every
 * (cnode, location), whatever way the file stores it. Views read the model
 * directly; it is read-only for them.
 */
#ifndef HPROF_CUBE_READER_H
#define HPROF_CUBE_READER_H

#include <stddef.h>

#include "report/cube/reader/cube_model.h"

/* Reads the definitions. NULL on error, with a one-line reason in err. */
cube_profile *cube_open(const char *path, char *err, size_t errlen);
void cube_close(cube_profile *p);

/* Decodes one metric's values (once; later calls return 0 at once).
 * A metric that is not loadable is skipped (returns 0, stays unloaded).
 * Returns -1 with a one-line reason when the file's data is bad. */
int cube_load_metric(cube_profile *p, int metric, char *err, size_t errlen);
/* Loads every loadable metric, several at a time. */
int cube_load_all(cube_profile *p, char *err, size_t errlen);

/* Memory: a view's values are bounded by what the file can honestly hold,
 * CR_ZLIB_MAX_RATIO (1032, zlib's largest expansion) times its size on
 * disk, and at least 256 MB. cube_load_metric holds cnodes x locations
 * values twice (exclusive and inclusive) and takes them from this budget;
 * past it, it fails with a one-line reason. cube_scan_metric reads rows
 * one at a time instead, for views that do not need every location.
 * cube_row_fn (cube_model.h) takes one row: the values of every location
 * at one cnode, as the file stores them. */

/* Passes the metric's rows to fn one at a time (rows the file leaves out
 * are zero and not passed; a loaded metric passes every row). Ratios and
 * metrics that are not loadable pass nothing. 0, or -1 with a reason. */
int cube_scan_metric(cube_profile *p, int metric, cube_row_fn fn, void *ctx, char *err, size_t errlen);

/* Takes n doubles from the budget above: 0, or -1 with a one-line reason. */
int cube_reserve_values(cube_profile *p, size_t n, char *err, size_t errlen);

/* Adds the derived metric "A/B" (sum of A over sum of B wherever values are
 * combined; per location A/B, NaN where B is 0). Returns its index, or -1
 * when out of memory. Metric pointers taken before are invalid after. */
int cube_add_ratio(cube_profile *p, int num, int den);

/* Metric index by unique name, -1 if absent. */
int cube_find_metric(const cube_profile *p, const char *uniq_name);

/* One value; 0 for a metric without data or not loaded. */
double cube_value(const cube_profile *p, int metric, int cnode, int loc, int inclusive);

/* Value at a cnode combined over all locations (sum, min or max). */
double cube_value_all_locs(const cube_profile *p, int metric, int cnode, int inclusive);

/* Value of a top-level <attr key=...>, NULL if absent. */
const char *cube_attr_get(const cube_profile *p, const char *key);

/* The bytes of an archive member beside the CUBE data (e.g. hprof.timeline),
 * NULL if the file has none by that name. Valid until cube_close. */
const unsigned char *cube_member(const cube_profile *p, const char *name, size_t *len);

/* Region name of a cnode ("?" if none). */
const char *cube_cnode_name(const cube_profile *p, int cnode);

#endif
