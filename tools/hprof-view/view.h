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
    char *err;              /* why loading values failed */
    size_t errlen;
} view_opts;

/* Views return 0, VIEW_FAILED (output or memory error) or VIEW_BAD_FILE
 * (the file's values could not be read; reason in o->err). Each view loads
 * the metrics it shows. */
enum { VIEW_FAILED = -1, VIEW_BAD_FILE = -2 };

/* Call tree, one line per cnode, with a time split header. */
int view_tree(cube_profile *p, const view_opts *o, FILE *out);
/* path,rank,thread,metric,exclusive,inclusive (the CSV contract). */
int view_csv(cube_profile *p, const view_opts *o, FILE *out);
/* cnode id,location index,metric,exclusive,inclusive (for tests). */
int view_csv_ids(cube_profile *p, const view_opts *o, FILE *out);
/* Loads every metric: a full check of the file. */
int view_check(cube_profile *p, const view_opts *o, FILE *out);

/* Helpers shared by views (view_util.c). */
void view_print_value(FILE *out, const cube_metric *m, double v);
void view_print_csv_field(FILE *out, const char *s);
/* Metrics a view should show: the chosen ones, else every loadable one,
 * all loaded. Returns a malloc'd list and its length in *n, or NULL with
 * *rc set to a view status. */
int *view_metric_list(cube_profile *p, const view_opts *o, int *n, int *rc);
/* Loads one metric's values; 0 or VIEW_BAD_FILE. */
int view_load(cube_profile *p, const view_opts *o, int metric);

#endif
