/*
 * hprof-view - explore a CUBE4 (.cubex) profile written by hprof (or by
 * Score-P/Scalasca): call tree, flat profile, ranks, MPI summary,
 * hotspots, diff, and exports (CSV, JSON, collapsed stacks, HTML).
 *
 * Exit status: 0 success, 2 unreadable file or bad usage, 1 output error.
 */
#include "report/cube/reader/cube_reader.h"
#include "tools/hprof-view/view.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef HPROF_VERSION
#define HPROF_VERSION "unknown"
#endif

enum mode {
    MODE_TREE,
    MODE_CSV,
    MODE_CSV_IDS,
    MODE_CHECK,
    MODE_FLAT,
    MODE_RANKS,
    MODE_MPI,
    MODE_HOTSPOTS,
    MODE_DIFF,
    MODE_HEADER,
    MODE_INTERVALS,
    MODE_JSON,
    MODE_FOLDED,
    MODE_HTML,
    MODE_TIMELINE,
    MODE_NOW,
    MODE_NOW_JSON,
    MODE_HATCHET,
    MODE_SPEEDSCOPE,
    MODE_PERFETTO
};

static const char usage[] =
    "usage: hprof-view [VIEW] [OPTIONS] FILE.cubex\n"
    "       hprof-view --diff [OPTIONS] BEFORE.cubex AFTER.cubex\n"
    "\n"
    "Explores a CUBE4 profile written by hprof, Score-P or Scalasca.\n"
    "\n"
    "Views (one; the call tree by default):\n"
    "  (none)                call tree: inclusive and exclusive values, % of total\n"
    "  --flat                flat profile by region, like gprof\n"
    "  --ranks               heaviest call paths over ranks: min/mean/max, the rank\n"
    "                        of each extreme, imbalance, a per-rank strip\n"
    "  --mpi                 MPI summary: MPI time per rank, top call sites by time\n"
    "                        and by bytes sent, message sizes\n"
    "  --hotspots            ranked findings, each naming the view with details\n"
    "  --diff                compare two profiles by call path names\n"
    "  --header              what was measured and the top-level time split\n"
    "  --intervals           effective sampling interval histogram (hprof files)\n"
    "  --timeline            MPI share over time per rank, phases (MPI_Pcontrol), the\n"
    "                        heaviest call paths over time, and findings: when a rank\n"
    "                        starts to lag (and under which path), when MPI takes over\n"
    "Exports:\n"
    "  --csv                 path,rank,thread,metric,exclusive,inclusive: one row per\n"
    "                        call path, location and metric with a nonzero value;\n"
    "                        path joins region names with ';'\n"
    "  --csv-ids             like --csv, keyed by the file's cnode id and the\n"
    "                        location index (cnode,location,metric,...)\n"
    "  --json                the whole profile as JSON (schema: README)\n"
    "  --folded              collapsed stacks 'main;solve;MPI_Allreduce 1234' for\n"
    "                        flame graph tools; seconds are written as microseconds\n"
    "  --html FILE           one self-contained HTML page: call tree, flame graph,\n"
    "                        per-rank heat strip, search ('-': standard output)\n"
    "  --hatchet             Hatchet's GraphFrame JSON (GraphFrame.from_json; with\n"
    "                        metadata: tools/python/hprof_hatchet.py): one record\n"
    "                        per call path and rank, every metric\n"
    "  --speedscope          speedscope's format: one profile per rank (and thread)\n"
    "                        weighted by the main metric\n"
    "  --perfetto            the timeline as Chrome trace-event JSON for Perfetto:\n"
    "                        a track per rank, MPI share and heaviest paths\n"
    "  --check               read every value in the file and report\n"
    "  --now                 a snapshot (hprof-snapshot): where every rank was, one\n"
    "                        line a call path with its ranks and seconds there;\n"
    "                        with --json a list of groups (ranks, path, seconds)\n"
    "Options:\n"
    "  --metric NAME[,NAME]  metrics to show (unique names; default: time and, in\n"
    "                        the tree, visits and bytes); the first one orders\n"
    "  --rank N              values of MPI rank N only (default: summed over ranks)\n"
    "  --threshold PCT       tree: fold call paths under PCT% of the total into one\n"
    "                        '[N more]' line (default 0.5; 0 shows all)\n"
    "  --depth N             tree: show N levels below the roots at most\n"
    "  --focus REGEX         only the subtrees of regions matching REGEX (with their\n"
    "                        callers, dimmed, in the tree)\n"
    "  --fold libs|LIB,...   consecutive frames of one shared library (all, or those\n"
    "                        whose file name starts with LIB) become one node\n"
    "                        [libstdc++.so.6] holding their exclusive values\n"
    "  --hide REGEX          fold frames matching REGEX into their callers (repeatable)\n"
    "  --no-hide             keep libc/libstdc++/loader/hprof internals, which are\n"
    "                        folded into the library function the program called by\n"
    "                        default\n"
    "  --long-names          full C++ names (template and function arguments); by\n"
    "                        default the tree, --flat, --mpi, --hotspots and\n"
    "                        --ranks print them short (ns::Solver::step), longer\n"
    "                        only where two functions would look the same\n"
    "  --phase N             --timeline, --hotspots' timeline findings, the HTML heat\n"
    "                        map and --perfetto: only MPI_Pcontrol phase N (from\n"
    "                        rank 0's first MPI_Pcontrol(N) to its next mark of\n"
    "                        another level)\n"
    "  --top N               entries in --ranks, --mpi, --hotspots, --diff (default 10)\n"
    "  --color[=WHEN]        always, never or auto (default: auto: on a terminal and\n"
    "                        NO_COLOR unset); --no-color = --color=never\n"
    "  --help, --version\n"
    "\n"
    "Examples:\n"
    "  hprof-view prof.cubex                      call tree, time split on top\n"
    "  hprof-view --hotspots prof.cubex           what to look at first\n"
    "  hprof-view --ranks --top 5 prof.cubex      who is the outlier rank\n"
    "  hprof-view --rank 0 --focus 'std::endl' prof.cubex\n"
    "  hprof-view --metric bytes_sent --flat prof.cubex\n"
    "  hprof-view --diff before.cubex after.cubex\n"
    "  hprof-view --folded prof.cubex | flamegraph.pl > flame.svg\n"
    "  hprof-view --html prof.html prof.cubex     then open prof.html in a browser\n"
    "  hprof-view --json prof.cubex | python3 -m json.tool | less\n"
    "\n"
    "Exit status: 0 done, 2 unreadable file or bad usage, 1 output error.\n";

typedef struct args {
    int mode;
    const char *metrics; /* the --metric list, NULL if none */
    const char *path, *path2;
    const char *color;
    view_opts o;
} args;

static int bad_usage(const char *msg, const char *arg)
{
    fprintf(stderr, "hprof-view: %s%s\n", msg, arg ? arg : "");
    fputs("usage: hprof-view [VIEW] [OPTIONS] FILE.cubex (see --help)\n", stderr);
    return 2;
}

/* "--name VALUE" or "--name=VALUE": the value, else NULL. */
static const char *opt_value(int argc, char **argv, int *i, const char *name, int *missing)
{
    size_t n = strlen(name);
    const char *s = argv[*i];
    if (strncmp(s, name, n) != 0)
        return NULL;
    if (s[n] == '=')
        return s + n + 1;
    if (s[n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

static const struct {
    const char *flag;
    int mode;
} modes[] = {
    { "--csv", MODE_CSV },           { "--csv-ids", MODE_CSV_IDS },
    { "--check", MODE_CHECK },       { "--flat", MODE_FLAT },
    { "--ranks", MODE_RANKS },       { "--mpi", MODE_MPI },
    { "--hotspots", MODE_HOTSPOTS }, { "--diff", MODE_DIFF },
    { "--header", MODE_HEADER },     { "--intervals", MODE_INTERVALS },
    { "--json", MODE_JSON },         { "--folded", MODE_FOLDED },
    { "--tree", MODE_TREE },         { "--timeline", MODE_TIMELINE },
    { "--now", MODE_NOW },           { "--hatchet", MODE_HATCHET },
    { "--perfetto", MODE_PERFETTO }, { "--speedscope", MODE_SPEEDSCOPE },
};

/* Options with a value; returns 1 if s was one, -1 on error (status in *rc). */
static int value_option(int argc, char **argv, int *i, args *a, int *rc)
{
    int missing = 0;
    const char *v;
    double d;
    view_opts *o = &a->o;
    if ((v = opt_value(argc, argv, i, "--metric", &missing))) {
        a->metrics = v;
    } else if ((v = opt_value(argc, argv, i, "--html", &missing))) {
        a->mode = MODE_HTML;
        o->out_path = v;
    } else if ((v = opt_value(argc, argv, i, "--threshold", &missing))) {
        if (view_parse_number(v, 0, 100, &d) < 0)
            return *rc = bad_usage("--threshold: a percentage from 0 to 100, not ", v), -1;
        o->threshold = d;
    } else if ((v = opt_value(argc, argv, i, "--depth", &missing))) {
        if (view_parse_number(v, 0, 1e6, &d) < 0 || d != (int)d)
            return *rc = bad_usage("--depth: a whole number >= 0, not ", v), -1;
        o->max_depth = (int)d;
    } else if ((v = opt_value(argc, argv, i, "--rank", &missing))) {
        if (view_parse_number(v, 0, 1e9, &d) < 0 || d != (int)d)
            return *rc = bad_usage("--rank: a rank number >= 0, not ", v), -1;
        o->rank = (int)d;
    } else if ((v = opt_value(argc, argv, i, "--top", &missing))) {
        if (view_parse_number(v, 1, 1e6, &d) < 0 || d != (int)d)
            return *rc = bad_usage("--top: a whole number >= 1, not ", v), -1;
        o->top = (int)d;
    } else if ((v = opt_value(argc, argv, i, "--fold", &missing))) {
        if (!v[0] || strspn(v, ",") == strlen(v))
            return *rc = bad_usage("--fold: 'libs' or a comma list of library names, not ", "''"), -1;
        o->fold = v;
    } else if ((v = opt_value(argc, argv, i, "--phase", &missing))) {
        o->phase = v;
    } else if ((v = opt_value(argc, argv, i, "--focus", &missing))) {
        o->focus = v;
    } else if ((v = opt_value(argc, argv, i, "--hide", &missing))) {
        if (o->nhide >= VIEW_MAX_HIDE)
            return *rc = bad_usage("--hide: too many patterns", NULL), -1;
        o->hide[o->nhide++] = v;
    } else if (strncmp(argv[*i], "--color=", 8) == 0) {
        a->color = argv[*i] + 8;
    } else {
        if (missing)
            return *rc = bad_usage("missing value for ", argv[*i]), -1;
        return 0;
    }
    return 1;
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, args *a)
{
    memset(a, 0, sizeof *a);
    a->o.threshold = 0.5;
    a->o.max_depth = -1;
    a->o.rank = -1;
    a->o.default_hide = 1;
    a->o.top = 10;
    a->color = "auto";
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        int known = 0;
        for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++)
            if (strcmp(s, modes[k].flag) == 0) {
                int m = modes[k].mode; /* --now with --json, either order: the groups as JSON */
                if ((m == MODE_JSON && a->mode == MODE_NOW) || (m == MODE_NOW && a->mode == MODE_JSON))
                    m = MODE_NOW_JSON;
                a->mode = m, known = 1;
            }
        if (known)
            continue;
        int r = value_option(argc, argv, &i, a, &rc);
        if (r < 0)
            return rc;
        if (r > 0)
            continue;
        if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(s, "--version") == 0) {
            printf("hprof-view %s\n", HPROF_VERSION);
            return 0;
        } else if (strcmp(s, "--no-hide") == 0) {
            a->o.default_hide = 0;
        } else if (strcmp(s, "--long-names") == 0) {
            a->o.long_names = 1;
        } else if (strcmp(s, "--color") == 0) {
            a->color = "always";
        } else if (strcmp(s, "--no-color") == 0) {
            a->color = "never";
        } else if (strcmp(s, "--") == 0) {
            for (i++; i < argc; i++) {
                if (a->path2)
                    return bad_usage("too many files given: ", argv[i]);
                *(a->path ? &a->path2 : &a->path) = argv[i];
            }
        } else if (s[0] == '-' && s[1]) {
            return bad_usage("unknown option ", s);
        } else if (a->path2) {
            return bad_usage("too many files given: ", s);
        } else {
            *(a->path ? &a->path2 : &a->path) = s;
        }
    }
    if (!a->path)
        return bad_usage("no file given", NULL);
    if (a->mode == MODE_DIFF && !a->path2)
        return bad_usage("--diff needs two files: BEFORE.cubex AFTER.cubex", NULL);
    if (a->mode != MODE_DIFF && a->path2)
        return bad_usage("more than one file given: ", a->path2);
    if (a->o.phase && a->mode != MODE_TIMELINE && a->mode != MODE_HOTSPOTS && a->mode != MODE_HTML &&
        a->mode != MODE_PERFETTO)
        return bad_usage(
            "--phase restricts --timeline, --hotspots, --html and --perfetto (the timeline's data: "
            "the call tree has no time axis)",
            NULL);
    const char *nc = getenv("NO_COLOR");
    if (strcmp(a->color, "always") == 0)
        a->o.color = 1;
    else if (strcmp(a->color, "auto") == 0)
        a->o.color = isatty(STDOUT_FILENO);
    else if (strcmp(a->color, "never") != 0)
        return bad_usage("--color: always, never or auto, not ", a->color);
    if (nc && nc[0])
        a->o.color = 0;
    if (a->mode == MODE_HATCHET)
        a->o.default_hide = 0; /* the file's own call paths, as --json: the same values */
    /* short names where space is short; exports and the HTML page (which
     * has room, and a search) keep the file's names */
    if (a->mode != MODE_TREE && a->mode != MODE_FLAT && a->mode != MODE_RANKS && a->mode != MODE_MPI &&
        a->mode != MODE_HOTSPOTS)
        a->o.long_names = 1;
    if (a->mode != MODE_TREE && a->mode != MODE_FLAT && a->mode != MODE_RANKS && a->mode != MODE_MPI &&
        a->mode != MODE_HOTSPOTS && a->mode != MODE_DIFF && a->mode != MODE_HEADER &&
        a->mode != MODE_INTERVALS && a->mode != MODE_TIMELINE)
        a->o.color = 0; /* exports are data */
    return -1;
}

/* NAME, or A/B: a ratio of two metrics. Event names may hold '/' themselves
 * (coretemp:::hwmon0/temp1_input), so the whole name is tried first, then
 * each '/' where both sides name metrics. */
static int find_metric_or_ratio(cube_profile *p, const char *name)
{
    int m = cube_find_metric(p, name);
    if (m >= 0)
        return m;
    for (const char *slash = strchr(name, '/'); slash; slash = strchr(slash + 1, '/')) {
        char *num = strndup(name, (size_t)(slash - name));
        int a = num ? cube_find_metric(p, num) : -1, b = cube_find_metric(p, slash + 1);
        free(num);
        if (a >= 0 && b >= 0 && p->metrics[a].loadable && p->metrics[b].loadable)
            return cube_add_ratio(p, a, b);
    }
    return -1;
}

/* Resolves the --metric list to metric indexes; exit status on error. */
static int resolve_metrics(cube_profile *p, const args *a, int **out, int *n)
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
        int m = find_metric_or_ratio(p, t);
        if (m < 0 || !p->metrics[m].loadable) {
            fprintf(stderr, "hprof-view: %s: %s metric %s\n", a->path, m < 0 ? "no" : "cannot show", t);
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

static int dispatch(cube_profile *p, int mode, const view_opts *o, FILE *out)
{
    switch (mode) {
    case MODE_CSV: return view_csv(p, o, out);
    case MODE_CSV_IDS: return view_csv_ids(p, o, out);
    case MODE_CHECK: return view_check(p, o, out);
    case MODE_FLAT: return view_flat(p, o, out);
    case MODE_RANKS: return view_ranks(p, o, out);
    case MODE_MPI: return view_mpi(p, o, out);
    case MODE_HOTSPOTS: return view_hotspots(p, o, out);
    case MODE_DIFF: return view_diff(p, o, out);
    case MODE_HEADER: return view_header_only(p, o, out);
    case MODE_INTERVALS: return view_intervals(p, o, out);
    case MODE_JSON: return view_json(p, o, out);
    case MODE_FOLDED: return view_folded(p, o, out);
    case MODE_HTML: return view_html(p, o, out);
    case MODE_TIMELINE: return view_timeline(p, o, out);
    case MODE_NOW: return view_now(p, o, out, 0);
    case MODE_NOW_JSON: return view_now(p, o, out, 1);
    case MODE_HATCHET: return view_hatchet(p, o, out);
    case MODE_SPEEDSCOPE: return view_speedscope(p, o, out);
    case MODE_PERFETTO: return view_perfetto(p, o, out);
    default: return view_tree(p, o, out);
    }
}

static int run_view(cube_profile *p, const args *a, const view_opts *o)
{
    FILE *out = stdout;
    int to_file = a->mode == MODE_HTML && strcmp(o->out_path, "-") != 0;
    if (to_file && !(out = fopen(o->out_path, "w"))) {
        fprintf(stderr, "hprof-view: cannot create %s: %s\n", o->out_path, strerror(errno));
        return 1;
    }
    int rc = dispatch(p, a->mode, o, out);
    if (rc == VIEW_BAD_FILE || rc == VIEW_BAD_USAGE) { /* before any output: views load first */
        fprintf(stderr, "hprof-view: %s: %s\n", rc == VIEW_BAD_FILE && o->err[0] == '@' ? o->path_b : a->path,
                o->err[0] == '@' ? o->err + 1 : o->err);
        if (to_file)
            fclose(out), remove(o->out_path);
        return 2;
    }
    int bad = fflush(out) != 0 || ferror(out) || rc < 0;
    if (to_file && fclose(out) != 0)
        bad = 1;
    if (bad) {
        fprintf(stderr, "hprof-view: cannot write output%s%s\n", to_file ? " to " : "",
                to_file ? o->out_path : "");
        return 1;
    }
    if (to_file)
        fprintf(stderr, "hprof-view: wrote %s%s%s%s\n", o->out_path, o->note[0] ? " (" : "", o->note,
                o->note[0] ? ")" : "");
    else if (o->note[0])
        fprintf(stderr, "hprof-view: %s\n", o->note);
    return 0;
}

int main(int argc, char **argv)
{
    args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    char err[512] = "", note[512] = "";
    cube_profile *p = cube_open(a.path, err, sizeof err), *pb = NULL;
    if (!p) {
        fprintf(stderr, "hprof-view: %s: %s\n", a.path, err);
        return 2;
    }
    if (a.path2 && !(pb = cube_open(a.path2, err, sizeof err))) {
        fprintf(stderr, "hprof-view: %s: %s\n", a.path2, err);
        cube_close(p);
        return 2;
    }
    int *metrics, nmetrics;
    rc = resolve_metrics(p, &a, &metrics, &nmetrics);
    if (rc < 0) {
        print_notes(p, a.path);
        if (pb)
            print_notes(pb, a.path2);
        view_opts *o = &a.o;
        o->path = a.path;
        o->metrics = metrics;
        o->nmetrics = nmetrics;
        o->err = err;
        o->errlen = sizeof err;
        o->note = note;
        o->notelen = sizeof note;
        o->path_b = a.path2;
        o->pb = pb;
        rc = run_view(p, &a, o);
    }
    free(metrics);
    cube_close(p);
    cube_close(pb);
    return rc;
}
