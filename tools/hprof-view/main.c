/*
 * hprof-view - show a CUBE4 (.cubex) profile written by hprof (or by
 * Score-P/Scalasca) as an indented call tree or as CSV.
 *
 * Exit status: 0 success, 2 unreadable file or bad usage, 1 output error.
 */
#include "cube_reader.h"
#include "view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum mode { MODE_TREE, MODE_CSV, MODE_CSV_IDS, MODE_CHECK };

static const char usage[] =
    "usage: hprof-view [--metric NAME[,NAME...]] [--csv] FILE.cubex\n"
    "\n"
    "Prints the call tree of a CUBE4 profile, one line per call path, values\n"
    "summed over all processes and threads (min/max metrics: min/max).\n"
    "Default columns: inclusive time with its share of the total, exclusive\n"
    "time, then visits, bytes_sent and bytes_received (exclusive), each only\n"
    "when the profile has it. A first line splits the total time into\n"
    "computation (comp_time), MPI (mpi_time) and the shares under the\n"
    "(unwind failed) and (not unwound) roots.\n"
    "\n"
    "  --metric NAME[,NAME]  show these metrics (unique names), inclusive and\n"
    "                        exclusive; with --csv, only these metrics\n"
    "  --csv                 print path,rank,thread,metric,exclusive,inclusive:\n"
    "                        one row per call path, location and metric with a\n"
    "                        nonzero value; path joins region names with ';'\n"
    "  --csv-ids             like --csv, keyed by the file's cnode id and the\n"
    "                        location index (cnode,location,metric,...)\n"
    "  --check               read every value in the file and report\n"
    "  --help                this text\n"
    "\n"
    "Exit status: 0 done, 2 unreadable file or bad usage, 1 output error.\n";

typedef struct args {
    int mode;
    const char *metrics;    /* the --metric list, NULL if none */
    const char *path;
} args;

static int bad_usage(const char *msg, const char *arg)
{
    fprintf(stderr, "hprof-view: %s%s\n", msg, arg ? arg : "");
    fputs("usage: hprof-view [--metric NAME[,NAME...]] [--csv] FILE.cubex (see --help)\n", stderr);
    return 2;
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(s, "--csv") == 0) {
            a->mode = MODE_CSV;
        } else if (strcmp(s, "--check") == 0) {
            a->mode = MODE_CHECK;
        } else if (strcmp(s, "--csv-ids") == 0) {
            a->mode = MODE_CSV_IDS;
        } else if (strcmp(s, "--metric") == 0) {
            if (++i >= argc)
                return bad_usage("--metric needs a list of metric names", NULL);
            a->metrics = argv[i];
        } else if (strncmp(s, "--metric=", 9) == 0) {
            a->metrics = s + 9;
        } else if (strcmp(s, "--") == 0 && i + 1 < argc && !a->path) {
            a->path = argv[++i];
        } else if (s[0] == '-' && s[1]) {
            return bad_usage("unknown option ", s);
        } else if (a->path) {
            return bad_usage("more than one file given: ", s);
        } else {
            a->path = s;
        }
    }
    if (!a->path)
        return bad_usage("no file given", NULL);
    return -1;
}

/* Resolves the --metric list to metric indexes; exit status on error. */
static int resolve_metrics(const cube_profile *p, const args *a, int **out, int *n)
{
    *n = 0;
    *out = NULL;
    if (!a->metrics)
        return -1;
    char *list = strdup(a->metrics);
    int *idx = malloc(sizeof *idx * (strlen(a->metrics) + 1));
    int rc = (list && idx) ? -1 : 1;
    for (char *save = NULL, *t = list ? strtok_r(list, ",", &save) : NULL; t && rc < 0;
         t = strtok_r(NULL, ",", &save)) {
        int m = cube_find_metric(p, t);
        if (m < 0 || !p->metrics[m].loadable) {
            fprintf(stderr, "hprof-view: %s: %s metric %s\n", a->path,
                    m < 0 ? "no" : "cannot show", t);
            rc = 2;
        } else {
            idx[(*n)++] = m;
        }
    }
    if (rc < 0 && *n == 0)
        rc = bad_usage("--metric: empty list", NULL);
    free(list);
    if (rc >= 0)
        free(idx);
    else
        *out = idx;
    return rc;
}

static void print_notes(const cube_profile *p, const char *path)
{
    for (int i = 0; i < p->nnotes; i++)
        fprintf(stderr, "hprof-view: %s: note: %s\n", path, p->notes[i]);
}

static int run_view(cube_profile *p, const args *a, const view_opts *o)
{
    int rc;
    if (a->mode == MODE_CSV)
        rc = view_csv(p, o, stdout);
    else if (a->mode == MODE_CSV_IDS)
        rc = view_csv_ids(p, o, stdout);
    else if (a->mode == MODE_CHECK)
        rc = view_check(p, o, stdout);
    else
        rc = view_tree(p, o, stdout);
    if (rc == VIEW_BAD_FILE) {  /* before any output: views load first */
        fprintf(stderr, "hprof-view: %s: %s\n", a->path, o->err);
        return 2;
    }
    if (fflush(stdout) != 0 || ferror(stdout) || rc < 0) {
        fprintf(stderr, "hprof-view: cannot write output\n");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    char err[512];
    cube_profile *p = cube_open(a.path, err, sizeof err);
    if (!p) {
        fprintf(stderr, "hprof-view: %s: %s\n", a.path, err);
        return 2;
    }
    int *metrics, nmetrics;
    rc = resolve_metrics(p, &a, &metrics, &nmetrics);
    if (rc < 0) {
        print_notes(p, a.path);
        view_opts o = { a.path, metrics, nmetrics, err, sizeof err };
        rc = run_view(p, &a, &o);
    }
    free(metrics);
    cube_close(p);
    return rc;
}
