/*
 * hprof-merge: one profile from the per-rank profiles a job left that never
 * reached MPI_Finalize (killed by its scheduler, aborted, crashed): each
 * rank that got the chance wrote <name>.rank<R>.cubex (README, "Partial
 * profiles"). See offline_merge.h for what the merge does, and
 * docs/man/hprof-merge.1.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/config.h"
#include "report/profile/locations_file.h"
#include "tools/hprof-merge/input_list.h"
#include "tools/hprof-merge/offline_merge.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: hprof-merge [-o OUTPUT.cubex] [-f] [--no-compress] [--locations all|reduced|auto]\n"
            "                   PROFILE.rankR.cubex...\n"
            "       hprof-merge [OPTIONS] FOLDER | -l LIST\n"
            "Merges the per-rank profiles of one run (the fallback profiles of a job that did not\n"
            "reach MPI_Finalize) into one CUBE4 profile. Without -o the output is the first\n"
            "input's name without .rankR (run.rank0.cubex -> run.cubex); an existing output is\n"
            "replaced only with -f. A FOLDER gives its NAME.rankR.cubex files, -l LIST the paths\n"
            "in a file, one a line ('-': standard input); the inputs are read one at a time.\n"
            "--locations reduced writes per call path the sum, min and max over the ranks and the\n"
            "rows of 3 key ranks instead of every rank's row; auto (the default, or HPROF_LOCATIONS)\n"
            "reduces above %d ranks, as MPI_Finalize's merge does.\n",
            LOCATIONS_AUTO_RANKS);
}

/* HPROF_LOCATIONS's choices (core/config.c), so that the option takes
 * what the variable takes. */
static const char *const *location_choices(void)
{
    int n;
    const hprof_var *v = hprof_config_vars(&n);
    for (int i = 0; i < n; i++)
        if (strcmp(v[i].name, "HPROF_LOCATIONS") == 0)
            return v[i].choices;
    return NULL;
}

/* enum hprof_locations of a name, or -1. */
static int location_setting(const char *name)
{
    const char *const *c = location_choices();
    for (int i = 0; c && c[i]; i++)
        if (strcmp(c[i], name) == 0)
            return i;
    return -1;
}

/* The default: HPROF_LOCATIONS where it is set (one line where it is not
 * a choice), else auto. */
static int default_locations(void)
{
    const char *env = getenv("HPROF_LOCATIONS");
    int s = env && env[0] ? location_setting(env) : HPROF_LOCATIONS_AUTO;
    if (s < 0) {
        fprintf(stderr, "hprof-merge: HPROF_LOCATIONS=%s is not all, reduced or auto: using auto\n", env);
        s = HPROF_LOCATIONS_AUTO;
    }
    return s;
}

/* run.rank3.cubex, run.rank3.2.cubex -> run.cubex */
static int default_output(const char *input, char *out, size_t len)
{
    const char *r = strstr(input, ".rank");
    const char *last = r;
    while (r && (r = strstr(r + 1, ".rank")))
        last = r;
    if (!last || last == input)
        return -1;
    snprintf(out, len, "%.*s.cubex", (int)(last - input), input);
    return 0;
}

/* The input that is the output's file, whatever the spelling (./, a
 * symbolic link, a hard link): -f must never replace an input. */
static const char *input_of_output(const char *output, char *const *inputs, int n)
{
    struct stat out, in;
    if (stat(output, &out) != 0)
        return NULL; /* nothing there yet, or a dangling link: no input */
    for (int i = 0; i < n; i++)
        if (stat(inputs[i], &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
            return inputs[i];
    return NULL;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' }, { "force", no_argument, NULL, 'f' },
        { "no-compress", no_argument, NULL, 'n' },  { "locations", required_argument, NULL, 'L' },
        { "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 }
    };
    offline_merge_opts o = { NULL, 0, 1, -1 };
    input_list in = { 0 };
    char err[1024];
    int c;
    while ((c = getopt_long(argc, argv, "o:fl:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': o.output = optarg; break;
        case 'f': o.overwrite_ok = 1; break;
        case 'n': o.compress = 0; break;
        case 'L':
            if ((o.locations = location_setting(optarg)) < 0) {
                fprintf(stderr, "hprof-merge: --locations takes all, reduced or auto, not '%s'\n", optarg);
                return 2;
            }
            break;
        case 'l':
            if (input_list_add_file(&in, optarg, err, sizeof err) != 0) {
                fprintf(stderr, "hprof-merge: %s\n", err);
                return 1;
            }
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    for (int i = optind; i < argc; i++)
        if (input_list_add_arg(&in, argv[i], err, sizeof err) != 0) {
            fprintf(stderr, "hprof-merge: %s\n", err);
            return 1;
        }
    if (o.locations < 0)
        o.locations = default_locations();
    if (in.n == 0) {
        fprintf(stderr, "hprof-merge: no profile to merge (hprof-merge --help)\n");
        return 2;
    }
    char name[4096];
    if (!o.output) {
        if (default_output(in.paths[0], name, sizeof name) != 0) {
            fprintf(stderr, "hprof-merge: %s is not named like NAME.rankR.cubex: name the output with -o\n",
                    in.paths[0]);
            return 2;
        }
        o.output = name;
    }
    const char *same = input_of_output(o.output, in.paths, in.n);
    if (same) {
        fprintf(stderr, "hprof-merge: the output %s is the input %s\n", o.output, same);
        input_list_free(&in);
        return 2;
    }
    char msg[1024];
    int rc = offline_merge((const char *const *)in.paths, in.n, &o, msg, sizeof msg);
    input_list_free(&in);
    fprintf(rc == 0 ? stdout : stderr, "hprof-merge: %s\n", msg);
    return rc == 0 ? 0 : 1;
}
