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

#include "tools/hprof-merge/input_list.h"
#include "tools/hprof-merge/offline_merge.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: hprof-merge [-o OUTPUT.cubex] [-f] [--no-compress] PROFILE.rankR.cubex...\n"
               "       hprof-merge [OPTIONS] FOLDER | -l LIST\n"
               "Merges the per-rank profiles of one run (the fallback profiles of a job that did not\n"
               "reach MPI_Finalize) into one CUBE4 profile. Without -o the output is the first\n"
               "input's name without .rankR (run.rank0.cubex -> run.cubex); an existing output is\n"
               "replaced only with -f. A FOLDER gives its NAME.rankR.cubex files, -l LIST the paths\n"
               "in a file, one a line ('-': standard input); the inputs are read one at a time.\n");
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
    static const struct option longopts[] = { { "output", required_argument, NULL, 'o' },
                                              { "force", no_argument, NULL, 'f' },
                                              { "no-compress", no_argument, NULL, 'n' },
                                              { "help", no_argument, NULL, 'h' },
                                              { NULL, 0, NULL, 0 } };
    offline_merge_opts o = { NULL, 0, 1 };
    input_list in = { 0 };
    char err[1024];
    int c;
    while ((c = getopt_long(argc, argv, "o:fl:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': o.output = optarg; break;
        case 'f': o.overwrite_ok = 1; break;
        case 'n': o.compress = 0; break;
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
