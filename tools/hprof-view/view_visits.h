/*
 * view_visits.h - visits of functions, which hprof only sees as a lower
 * bound (entries noticed by the thunk stack). Profiles that hold them in
 * the metric function_entries_seen (their visits on function paths are 0)
 * show them there as ">=N"; exact MPI visits stay as they are.
 */
#ifndef HPROF_VIEW_VISITS_H
#define HPROF_VIEW_VISITS_H

#include <stddef.h>
#include "tools/hprof-view/vtree.h"

#define VIEW_ENTRIES_METRIC "function_entries_seen"

/* Entries seen per view node, over the selected locations: those of the
 * node's own function only (not of the hidden frames folded into it, whose
 * entries are not the caller's). A malloc'd array of t->nv values, or NULL
 * if the file has no function_entries_seen (or it cannot be read). */
double *view_entries(vtree *t);

/* ">=N" for entries > 0, else NULL (print the visits as they are). */
const char *view_lower_bound(char *buf, size_t len, double entries);

#endif
