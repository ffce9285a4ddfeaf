#define _GNU_SOURCE
#include "report/profile/output_name.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report/cube/writer/cw_tmpfile.h"

/* The program's name, from /proc, for a recognisable default file name. */
static void program_name(char *buf, size_t len)
{
    snprintf(buf, len, "%s", program_invocation_short_name ? program_invocation_short_name : "app");
    for (char *p = buf; *p; p++)
        if (*p == '/' || *p == ' ')
            *p = '_';
}

static char spawn_tag[64];

void output_name_set_spawn(const char *tag)
{
    snprintf(spawn_tag, sizeof spawn_tag, "%s", tag && *tag ? tag : "spawn");
    for (char *p = spawn_tag; *p; p++)
        if (*p == '/')
            *p = '_';
}

/* stem.cubex, then stem.1.cubex, ... : never overwrite. The writer refuses
 * an existing name atomically, and its commit moves on to the next number
 * when the name was taken while it wrote. */
static cube_writer *create_new(const char *stem, char *path, size_t pathlen, char *err, size_t errlen)
{
    for (int i = 0; i < 10000; i++) {
        if (i == 0)
            snprintf(path, pathlen, "%s.cubex", stem);
        else
            snprintf(path, pathlen, "%s.%d.cubex", stem, i);
        if (access(path, F_OK) == 0)
            continue;
        cube_writer *w = cube_writer_create(path, 0, err, errlen);
        if (w || access(path, F_OK) != 0)
            return w;
    }
    snprintf(err, errlen, "no free profile name like %s.N.cubex", stem);
    return NULL;
}

int output_refused(const char *hprof_output, char *err, size_t errlen)
{
    const char *kind = hprof_output ? cw_special_file(hprof_output) : NULL;
    if (!kind)
        return 0;
    snprintf(err, errlen, "HPROF_OUTPUT %s is %s: hprof writes only a regular file or a new name",
             hprof_output, kind);
    return -1;
}

cube_writer *output_create(const char *hprof_output, int nprocs, char *path, size_t pathlen, char *err,
                           size_t errlen)
{
    if (output_refused(hprof_output, err, errlen) != 0)
        return NULL;
    cw_tmp_report_name_to(path, pathlen);
    char prog[128], stem[4096];
    program_name(prog, sizeof prog);
    if (hprof_output && !spawn_tag[0]) {
        snprintf(path, pathlen, "%s", hprof_output);
        return cube_writer_create(path, 1, err, errlen);
    }
    if (hprof_output) {
        /* a spawned job: HPROF_OUTPUT names its parent's profile */
        size_t n = strlen(hprof_output);
        if (n > 6 && strcmp(hprof_output + n - 6, ".cubex") == 0)
            n -= 6;
        snprintf(stem, sizeof stem, "%.*s.%s.%s", (int)n, hprof_output, prog, spawn_tag);
    } else if (spawn_tag[0]) {
        snprintf(stem, sizeof stem, "hprof-%s-%dp.%s", prog, nprocs, spawn_tag);
    } else {
        snprintf(stem, sizeof stem, "hprof-%s-%dp", prog, nprocs);
    }
    return create_new(stem, path, pathlen, err, errlen);
}
