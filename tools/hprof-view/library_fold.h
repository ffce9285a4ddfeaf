/*
 * library_fold.h - which regions --fold folds: functions of shared
 * libraries (by the region's object: hprof's hprof::module attribute, or
 * its file when that is the object itself),
 * all of them ("libs") or those of the named modules ("libstdc++,libc.so.6":
 * a name matches a module whose file name starts with it).
 */
#ifndef HPROF_LIBRARY_FOLD_H
#define HPROF_LIBRARY_FOLD_H

#include "report/cube/reader/cube_reader.h"

/* Per region: "[libstdc++.so.6]" when its frames are folded, else NULL.
 * NULL when out of memory. */
char **library_fold_labels(const cube_profile *p, const char *spec);
void library_fold_free(const cube_profile *p, char **labels);

/* The file name of a region's module when it is a shared library
 * ("libstdc++.so.6"), else NULL. */
const char *library_of_region(const cube_profile *p, int region);

#endif
