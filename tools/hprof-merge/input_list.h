/*
 * input_list.h - the profiles hprof-merge is given: paths, folders (their
 * NAME.rankR.cubex files) and list files (one path a line), gathered into
 * one list of paths. A folder or a list names 100k files where a shell
 * glob of them would pass the kernel's limit on a command's arguments.
 */
#ifndef HPROF_INPUT_LIST_H
#define HPROF_INPUT_LIST_H

#include <stddef.h>

typedef struct input_list {
    char **paths;
    int n, cap;
} input_list;

/* A profile's path as it is, or a folder's NAME.rankR.cubex files (R
 * digits, in name order; hidden files left out). 0, or -1 with a one-line
 * reason in err (a folder without such files is one). */
int input_list_add_arg(input_list *l, const char *arg, char *err, size_t errlen);

/* The paths of a list file, one a line ("-": standard input); blank lines
 * are skipped. 0, or -1 with a one-line reason in err. */
int input_list_add_file(input_list *l, const char *list, char *err, size_t errlen);

void input_list_free(input_list *l);

#endif
