/*
 * view.h - the views of hprof-view. Each view prints one presentation of a
 * loaded profile to a stream; main.c picks one. Add a view by adding a file
 * with one function here.
 *
 * Most views work on the view tree (vtree.h): the call tree with hidden
 * frames folded into their callers, a focus and a rank selection applied.
 * The exports --csv and --json print the file's own call tree.
 */
#ifndef HPROF_VIEW_H
#define HPROF_VIEW_H

#include <stdio.h>
#include "report/cube/reader/cube_reader.h"

#define VIEW_MAX_HIDE 32

typedef struct view_opts {
    const char *path;   /* the file, for headings */
    const int *metrics; /* metric indexes chosen with --metric */
    int nmetrics;       /* 0: the view's default set */
    char *err;          /* why loading values failed */
    size_t errlen;
    char *note; /* a view's one line about what it left out (--html), "" if none */
    size_t notelen;
    double threshold;                /* tree: fold nodes under this % of the total */
    int max_depth;                   /* tree: deepest level shown, -1 for all */
    int rank;                        /* -1: all ranks, else this MPI rank only */
    const char *focus;               /* regex: only subtrees of matching regions */
    const char *hide[VIEW_MAX_HIDE]; /* regexes: frames folded into callers */
    int nhide;
    int default_hide;     /* fold libc/libstdc++/... internals */
    int long_names;       /* full C++ names (default: short, see short_name.h) */
    const char *fold;     /* --fold: "libs" or a comma list of modules, NULL: none */
    int color;            /* ANSI colours */
    int top;              /* list length of ranks, mpi, hotspots, diff */
    const char *out_path; /* --html FILE */
    const char *path_b;   /* --diff: the second file */
    cube_profile *pb;     /* --diff: the second profile */
    const char *phase;    /* --phase: an MPI_Pcontrol level (timeline views), NULL: all */
} view_opts;

/* Views return 0, VIEW_FAILED (output or memory error), VIEW_BAD_FILE
 * (the file's values could not be read; reason in o->err) or
 * VIEW_BAD_USAGE (an option does not fit the file; reason in o->err).
 * Each view loads the metrics it shows. */
enum {
    VIEW_FAILED = -1,
    VIEW_BAD_FILE = -2,
    VIEW_BAD_USAGE = -3
};

/* Call tree, one line per call path, with the header. */
int view_tree(cube_profile *p, const view_opts *o, FILE *out);
/* path,rank,thread,metric,exclusive,inclusive (the CSV contract). */
int view_csv(cube_profile *p, const view_opts *o, FILE *out);
/* cnode id,location index,metric,exclusive,inclusive (for tests). */
int view_csv_ids(cube_profile *p, const view_opts *o, FILE *out);
/* Loads every metric: a full check of the file. */
int view_check(cube_profile *p, const view_opts *o, FILE *out);
/* Flat profile by region (--flat). */
int view_flat(cube_profile *p, const view_opts *o, FILE *out);
/* Heaviest call paths over ranks: min/mean/max, imbalance (--ranks). */
int view_ranks(cube_profile *p, const view_opts *o, FILE *out);
/* MPI summary (--mpi). */
int view_mpi(cube_profile *p, const view_opts *o, FILE *out);
/* Ranked findings (--hotspots). */
int view_hotspots(cube_profile *p, const view_opts *o, FILE *out);
/* Two profiles compared by call path names (--diff). */
int view_diff(cube_profile *p, const view_opts *o, FILE *out);
/* What was measured and the top-level split (--header). */
int view_header_only(cube_profile *p, const view_opts *o, FILE *out);
/* Effective sampling interval histogram (--intervals). */
int view_intervals(cube_profile *p, const view_opts *o, FILE *out);
/* Exports: JSON, collapsed stacks, self-contained HTML. */
int view_json(cube_profile *p, const view_opts *o, FILE *out);
int view_folded(cube_profile *p, const view_opts *o, FILE *out);
int view_html(cube_profile *p, const view_opts *o, FILE *out);
/* Exports for other tools (view_hatchet.c, view_speedscope.c,
 * view_perfetto.c): Hatchet's GraphFrame JSON with the run's metadata,
 * speedscope's format (a profile per rank), Chrome trace-event JSON of the
 * timeline for Perfetto. */
int view_hatchet(cube_profile *p, const view_opts *o, FILE *out);
int view_speedscope(cube_profile *p, const view_opts *o, FILE *out);
int view_perfetto(cube_profile *p, const view_opts *o, FILE *out);
/* --timeline: the time line member (report/merge/timeline_file.h). */
int view_timeline(cube_profile *p, const view_opts *o, FILE *out);
/* A snapshot's places (metric now): one line a place, its ranks and
 * seconds, longest first; json: a list of groups (ranks, path, seconds). */
int view_now(cube_profile *p, const view_opts *o, FILE *out, int json);

/* Helpers shared by views (view_util.c). */
/* A number in [lo, hi] with blanks allowed around it: 0, or -1 when s is
 * no such number. view_parse_long takes whole decimal numbers only. */
int view_parse_number(const char *s, double lo, double hi, double *out);
int view_parse_long(const char *s, long lo, long hi, long *out);
void view_print_value(FILE *out, const cube_metric *m, double v);
/* A CSV text cell: RFC 4180 quoting, and a leading ' when it starts like a
 * spreadsheet formula (= + - @ tab CR). Numbers go through view_print_value. */
void view_print_csv_field(FILE *out, const char *s);
/* Prints s as a JSON string (quoted, escaped; "<" as \u003c for HTML). */
void view_print_json_string(FILE *out, const char *s);
/* Prints a number for JSON: integers plainly, null for NaN/inf. */
void view_print_json_number(FILE *out, double v, int is_integer);
/* Metrics a view should show: the chosen ones, else every loadable one,
 * all loaded. Returns a malloc'd list and its length in *n, or NULL with
 * *rc set to a view status. */
int *view_metric_list(cube_profile *p, const view_opts *o, int *n, int *rc);
/* Loads one metric's values; 0 or VIEW_BAD_FILE. */
int view_load(cube_profile *p, const view_opts *o, int metric);
/* Loadable metric by name, -1 if absent or not loadable. */
int view_metric(const cube_profile *p, const char *name);
/* The metric the views rank by: the first --metric, else time, else the
 * first loadable metric; -1 if none. */
int view_main_metric(const cube_profile *p, const view_opts *o);
/* Human-readable value with its unit: "1.23 s", "12.0 MB", "1,234". */
const char *view_fmt(char *buf, size_t len, const cube_metric *m, double v);
/* 100 * part / total, 0 when total is 0. */
double view_share(double part, double total);
/* True when the region is an MPI function. */
int view_region_is_mpi(const cube_profile *p, int region);

/* ANSI colours, empty strings when o->color is off. */
const char *view_c(const view_opts *o, const char *code);
#define C_RESET "0"
#define C_BOLD "1"
#define C_DIM "2"
#define C_RED "31"
#define C_GREEN "32"
#define C_YELLOW "33"
#define C_BLUE "34"
#define C_MAGENTA "35"
#define C_CYAN "36"

#endif
