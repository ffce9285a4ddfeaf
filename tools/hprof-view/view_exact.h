/*
 * view_exact.h - functions measured exactly (hprof's issue 29): their
 * paths carry visits (exact, where other functions' are 0) and exact_time,
 * and the run attributes hprof::exact::N say which functions, on how many
 * ranks, from when (lib/exact/exact_report.h). The tree marks such a path
 * "[exact, T/visit]"; the header lists the functions.
 */
#ifndef HPROF_VIEW_EXACT_H
#define HPROF_VIEW_EXACT_H

#include <stdio.h>
#include "tools/hprof-view/vtree.h"

#define VIEW_EXACT_METRIC "exact_time"

/* The exact_time metric loaded (-1: the profile has none, nothing to do). */
int view_exact_load(vtree *t);
/* Vnode v is a function measured exactly on this path (exact_time and
 * visits of its own); its time per visit in *per_visit. */
int view_exact_at(const vtree *t, int m, int v, double *per_visit);
/* "[exact, 12.3 us a visit]" for such a vnode, else NULL. */
const char *view_exact_marker(const vtree *t, int m, int v, char *buf, size_t len);
/* Header lines: each function, its ranks and since when, visits and time
 * per visit over the selected ranks; what was selected but not measured
 * (hprof::unmeasured, one line). 0, or a view error. */
int view_exact_lines(vtree *t, FILE *out);

#endif
