#define _GNU_SOURCE
#include "output_name.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The program's name, from /proc, for a recognisable default file name. */
static void program_name(char *buf, size_t len)
{
    snprintf(buf, len, "%s", program_invocation_short_name ? program_invocation_short_name : "app");
    for (char *p = buf; *p; p++)
        if (*p == '/' || *p == ' ')
            *p = '_';
}

cube_writer *output_create(const char *hprof_output, int nprocs, char *path, size_t pathlen,
                           char *err, size_t errlen)
{
    if (hprof_output) {
        snprintf(path, pathlen, "%s", hprof_output);
        return cube_writer_create(path, 1, err, errlen);
    }
    char prog[128];
    program_name(prog, sizeof prog);
    /* hprof-<prog>-<P>p.cubex, then .1, .2, ... : never overwrite. The writer
     * refuses an existing name atomically, so a race just moves to the next. */
    for (int i = 0; i < 10000; i++) {
        if (i == 0)
            snprintf(path, pathlen, "hprof-%s-%dp.cubex", prog, nprocs);
        else
            snprintf(path, pathlen, "hprof-%s-%dp.%d.cubex", prog, nprocs, i);
        if (access(path, F_OK) == 0)
            continue;
        cube_writer *w = cube_writer_create(path, 0, err, errlen);
        if (w || access(path, F_OK) != 0)
            return w;
    }
    snprintf(err, errlen, "no free profile name like hprof-%s-%dp.N.cubex in the working directory", prog, nprocs);
    return NULL;
}
