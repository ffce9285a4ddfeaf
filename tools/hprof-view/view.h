/*
 * view.h - the views of hprof-view. Each view prints one presentation of a
 * loaded profile to a stream; main.c picks one. Add a view by adding a file
 * with one function here.
 */
#ifndef HPROF_VIEW_H
#define HPROF_VIEW_H

#include <stdio.h>
#include "cube_reader.h"

typedef struct view_opts {
    const char *path;       /* the file, for headings */
    const int *metrics;     /* metric indexes chosen with --metric */
    int nmetrics;           /* 0: the view's default set */
} view_opts;

/* Call tree, one line per cnode, with a time split header. */
int view_tree(const cube_profile *p, const view_opts *o, FILE *out);
/* path,rank,thread,metric,exclusive,inclusive (the CSV contract). */
int view_csv(const cube_profile *p, const view_opts *o, FILE *out);
/* cnode id,location index,metric,exclusive,inclusive (for tests). */
int view_csv_ids(const cube_profile *p, const view_opts *o, FILE *out);

/* Helpers shared by views (view_util.c). */
void view_print_value(FILE *out, const cube_metric *m, double v);
void view_print_csv_field(FILE *out, const char *s);
/* Metrics a view should show: the chosen ones, else every loaded one.
 * Returns a malloc'd list and its length in *n. */
int *view_metric_list(const cube_profile *p, const view_opts *o, int *n);

#endif
