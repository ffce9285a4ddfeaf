#define _GNU_SOURCE
#include "report/profile/fallback.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "report/cube/writer/cube_writer.h"
#include "report/profile/local_profile.h"
#include "report/profile/metrics.h"
#include "report/profile/output_name.h"
#include "report/profile/profile_file.h"

/* What the partial profiles' names add to the stem's last component at
 * most: ".rank" a rank of 10 digits, ".999" (a taken name's number) and
 * ".cubex". */
#define PARTIAL_SUFFIX_MAX 25

/* The stem's last component cut to leave room for the suffix within
 * NAME_MAX, at a character's first byte (UTF-8): a name the file system
 * refuses would lose the rank's profile. */
static void fit_name_max(char *stem)
{
    char *base = strrchr(stem, '/');
    base = base ? base + 1 : stem;
    size_t keep = NAME_MAX - PARTIAL_SUFFIX_MAX;
    if (strlen(base) <= keep)
        return;
    while (keep > 0 && ((unsigned char)base[keep] & 0xc0) == 0x80)
        keep--;
    base[keep] = '\0';
}

void fallback_stem(const char *output, int nranks, char *stem, int len)
{
    if (output) {
        snprintf(stem, (size_t)len, "%s", output);
        size_t n = strlen(stem);
        if (n > 6 && strcmp(stem + n - 6, ".cubex") == 0)
            stem[n - 6] = '\0';
    } else {
        snprintf(stem, (size_t)len, "hprof-%s-%dp", program_invocation_short_name, nranks);
    }
    fit_name_max(stem);
}

/* <stem>.rank<R>.cubex, or <stem>.rank<R>.<N>.cubex; an existing file is
 * never replaced. */
static cube_writer *create_file(int rank, int nranks, const char *output, char *path, int pathlen, char *err,
                                int errlen)
{
    char stem[4096];
    if (output_refused(output, err, (size_t)errlen) != 0)
        return NULL;
    fallback_stem(output, nranks, stem, sizeof stem);
    for (int i = 0; i < 1000; i++) {
        if (i == 0)
            snprintf(path, (size_t)pathlen, "%s.rank%d.cubex", stem, rank);
        else
            snprintf(path, (size_t)pathlen, "%s.rank%d.%d.cubex", stem, rank, i);
        if (access(path, F_OK) == 0)
            continue;
        cube_writer *w = cube_writer_create(path, 0, err, (size_t)errlen);
        if (w || access(path, F_OK) != 0)
            return w;
    }
    snprintf(err, (size_t)errlen, "no free name like %s.rank%d.N.cubex", stem, rank);
    return NULL;
}

/* The least a one-rank profile takes on disk: anchor.xml plus an index and
 * a data member per metric, each behind a 512-byte tar header (a profile
 * with one call path is about 38 KB). */
#define FALLBACK_MIN_BYTES 16384

int fallback_check_room(const char *output, char *err, int errlen)
{
    if (output_refused(output, err, (size_t)errlen) != 0)
        return -1;
    char dir[4096] = ".";
    const char *slash = output ? strrchr(output, '/') : NULL;
    if (slash == output && output)
        snprintf(dir, sizeof dir, "/");
    else if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - output), output);
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(err, (size_t)errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    struct statvfs sv;
    if (statvfs(dir, &sv) != 0)
        return 0; /* cannot tell: try */
    /* root may use the blocks reserved for it */
    unsigned long long blocks = geteuid() == 0 ? sv.f_bfree : sv.f_bavail;
    unsigned long long room = blocks * (unsigned long long)sv.f_frsize;
    if (room < FALLBACK_MIN_BYTES) {
        snprintf(err, (size_t)errlen, "%s: %s (%llu bytes free)", dir, strerror(ENOSPC), room);
        return -1;
    }
    return 0;
}

static int write_values(cube_writer *w, local_profile *lp)
{
    double *row = calloc((size_t)lp->nthreads + 1, sizeof(double));
    int rc = row ? 0 : -1;
    for (int m = 0; rc == 0 && m < metrics_count(); m++) {
        rc = cube_writer_metric_begin(w, m);
        for (int k = 0; rc == 0 && k < lp->defs->ncnodes; k++) {
            int c = cube_writer_row_cnode(w, m, k);
            for (int t = 0; t < lp->nthreads; t++)
                row[t] = metrics_stored(local_profile_values(lp, c, t), m);
            rc = cube_writer_metric_row(w, c, row);
        }
        if (rc == 0)
            rc = cube_writer_metric_end(w);
    }
    free(row);
    return rc;
}

int fallback_write(const hprof_snapshot *snapshot, int rank, int nranks, const char *output,
                   const char *reason, const char *const *attr_keys, const char *const *attr_values,
                   int nattrs, char *path, int pathlen, char *err, int errlen)
{
    err[0] = '\0';
    local_profile *lp = local_profile_build(snapshot);
    if (!lp) {
        snprintf(err, (size_t)errlen, "out of memory");
        return -1;
    }
    metrics_set_events(metrics_local_events());
    cube_writer *w = create_file(rank, nranks, output, path, pathlen, err, errlen);
    if (!w) {
        local_profile_free(lp);
        return -1;
    }
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    const char *nodes[1] = { host };
    cube_process_def proc = { rank, 0, lp->nthreads, (const char *const *)lp->thread_names, NULL };
    const char **keys = calloc((size_t)nattrs + 1, sizeof *keys);
    const char **values = calloc((size_t)nattrs + 1, sizeof *values);
    int rc = -1;
    if (keys && values) {
        for (int i = 0; i < nattrs; i++) {
            keys[i] = attr_keys[i];
            values[i] = attr_values[i];
        }
        keys[nattrs] = "hprof::partial";
        values[nattrs] = reason;
        rc = profile_file_define(w, lp->defs, nodes, 1, &proc, 1, keys, values, nattrs + 1);
    }
    if (rc == 0)
        rc = write_values(w, lp);
    free(keys);
    free(values);
    local_profile_free(lp);
    if (rc != 0) {
        if (!err[0])
            snprintf(err, (size_t)errlen, "writing the profile failed");
        cube_writer_abort(w);
        return -1;
    }
    return cube_writer_commit(w, err, (size_t)errlen);
}
