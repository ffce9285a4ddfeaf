/*
 * vtl_data.c - the timeline member (report/merge/timeline_file.h: packed,
 * vtl_unpack.h; as text, vtl_text.h) loaded for the views (vtl_data.h):
 * sums over ranks and buckets, path names, and the --phase restriction.
 */
#include "tools/hprof-view/vtl_data.h"

#include "tools/hprof-view/vtl_text.h"
#include "tools/hprof-view/vtl_unpack.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int vtl_bucket(const timeline *tl, double t)
{
    double b = t / tl->width;
    if (!(b > 0))
        return 0; /* also NaN */
    return b >= tl->nb ? tl->nb : (int)lround(b);
}

/* --phase N: from the first MPI_Pcontrol(N) of rank 0 (or of the first
 * rank that marked any) to its next mark of another level, or the end;
 * to the nearest bucket edges. A mark past the time line's end (only a
 * damaged member holds one) is refused, not drawn as its last bucket. */
static int restrict_phase(timeline *tl, const char *spec, char *err, size_t errlen)
{
    long level;
    if (view_parse_long(spec, INT_MIN, INT_MAX, &level) < 0) {
        snprintf(err, errlen, "--phase: an MPI_Pcontrol level (a whole number), not '%s'", spec);
        return -1;
    }
    int who = tl->nphases ? tl->phase[0].rank : 0;
    for (int i = 0; i < tl->nphases; i++)
        if (tl->phase[i].rank < who)
            who = tl->phase[i].rank;
    double t0 = 0, t1 = 0;
    int start = 0, end = 0;
    char seen[256] = "";
    for (int i = 0; i < tl->nphases; i++) {
        if (tl->phase[i].rank != who)
            continue;
        if (strlen(seen) < sizeof seen - 16)
            snprintf(seen + strlen(seen), sizeof seen - strlen(seen), " %d", tl->phase[i].level);
        if (!start && tl->phase[i].level == level)
            t0 = tl->phase[i].t, start = 1;
        else if (start && !end && tl->phase[i].level != level)
            t1 = tl->phase[i].t, end = 1;
    }
    if (!start) {
        int n =
            snprintf(err, errlen, "--phase %ld: rank %d never called MPI_Pcontrol(%ld) (levels marked:%s)",
                     level, who, level, seen[0] ? seen : " none");
        if (tl->phases_dropped > 0 && n >= 0 && (size_t)n < errlen)
            snprintf(err + n, errlen - (size_t)n,
                     " in the %d marks a rank that hprof keeps: %.0f more were not kept", VTL_RUNTIME_PHASES,
                     tl->phases_dropped);
        return -1;
    }
    if (!(t0 <= tl->nb * tl->width)) {
        snprintf(err, errlen,
                 "--phase %ld: rank %d's MPI_Pcontrol(%ld) at %.6g s is past the time line's end "
                 "(%.6g s): the member hprof.timeline is damaged",
                 level, who, level, t0, tl->nb * tl->width);
        return -1;
    }
    tl->phased = 1;
    tl->level = (int)level;
    tl->b0 = vtl_bucket(tl, t0);
    if (end)
        tl->b1 = vtl_bucket(tl, t1);
    if (tl->b0 >= tl->nb)
        tl->b0 = tl->nb - 1;
    if (tl->b1 > tl->nb)
        tl->b1 = tl->nb;
    if (tl->b1 <= tl->b0)
        tl->b1 = tl->b0 + 1;
    return 0;
}

/* The packed member read, or an older profile's text: 1, 0 when the
 * profile has neither, -1 when the one it has cannot be read. */
static int read_member(const cube_profile *p, timeline *tl)
{
    size_t len = 0;
    const unsigned char *z = cube_member(p, VTL_MEMBER_PACKED, &len);
    if (z)
        return vtl_unpack(z, len, tl) < 0 ? -1 : 1;
    const unsigned char *raw = cube_member(p, VTL_MEMBER, &len);
    if (!raw)
        return 0;
    char *text = malloc(len + 1);
    if (!text)
        return -1;
    memcpy(text, raw, len);
    text[len] = '\0';
    int rc = vtl_text_read(text, len, tl) < 0 ? -1 : 1;
    free(text);
    return rc;
}

/* The file's cnode ids of the paths to the profile's cnode indices. */
static void find_paths(const cube_profile *p, timeline *tl)
{
    for (int k = 0; k < tl->npaths; k++) {
        int id = tl->path_cnode[k];
        tl->path_cnode[k] = -1;
        for (int c = 0; c < p->ncnodes && id >= 0; c++)
            if (p->cnodes[c].id == id)
                tl->path_cnode[k] = c;
    }
}

int vtl_load(const cube_profile *p, const view_opts *o, timeline *tl)
{
    memset(tl, 0, sizeof *tl);
    int rc = read_member(p, tl);
    if (rc > 0 && vtl_store_finish(tl) < 0)
        rc = -1;
    if (rc > 0) {
        find_paths(p, tl);
        tl->b0 = 0;
        tl->b1 = tl->last_used ? tl->last_used : 1;
        if (o && o->phase && restrict_phase(tl, o->phase, o->err, o->errlen) < 0)
            rc = -2;
    }
    if (rc <= 0)
        vtl_free(tl);
    return rc;
}

void vtl_free(timeline *tl)
{
    vtl_store_free(tl);
}

/* Sum of values [b0, b1) of one series. */
static double span(const double *v, int b0, int b1)
{
    double s = 0;
    for (int b = b0; b < b1; b++)
        s += v[b];
    return s;
}

double vtl_sum(const timeline *tl, int r0, int r1, int f, int b0, int b1)
{
    if (r0 == 0 && r1 == tl->nranks)
        return span(tl->total + (size_t)f * (size_t)tl->nb, b0, b1);
    double s = 0;
    for (int r = r0; r < r1; r++)
        s += span(vtl_rank_series(tl, r, f), b0, b1);
    return s;
}

double vtl_share(const timeline *tl, int r0, int r1, int b0, int b1)
{
    double mpi = vtl_sum(tl, r0, r1, VTL_MPI, b0, b1), comp = vtl_sum(tl, r0, r1, VTL_COMP, b0, b1);
    return mpi + comp > 0 ? mpi / (mpi + comp) : -1;
}

double vtl_path_sum(const timeline *tl, int k, int r0, int r1, int f, int b0, int b1)
{
    double s = 0;
    for (int g = f == VTL_BOTH ? VTL_MPI : f; g <= (f == VTL_BOTH ? VTL_COMP : f); g++) {
        if (r0 == 0 && r1 == tl->nranks) {
            s += span(tl->ptotal + ((size_t)k * 2 + (size_t)g) * (size_t)tl->nb, b0, b1);
            continue;
        }
        for (int r = r0; r < r1; r++)
            s += span(vtl_path_series(tl, k, r, g), b0, b1);
    }
    return s;
}

void vtl_column(const timeline *tl, int c, int cols, int *b0, int *b1)
{
    int n = tl->b1 - tl->b0;
    *b0 = tl->b0 + c * n / cols;
    *b1 = tl->b0 + (c + 1) * n / cols;
    if (*b1 <= *b0)
        *b1 = *b0 + 1;
}

const char *vtl_path_name(const cube_profile *p, int cnode, char *buf, size_t len)
{
    const char *names[64];
    int n = 0;
    for (int c = cnode; c >= 0 && p->cnodes[c].parent >= 0 && n < 64; c = p->cnodes[c].parent)
        names[n++] = cube_cnode_name(p, c); /* the program's root is left out */
    if (cnode < 0 || n == 0) {
        snprintf(buf, len, "?");
        return buf;
    }
    /* the last frames that fit, innermost kept whole */
    size_t used = 0;
    int first = 0;
    for (int i = 0; i < n; i++) {
        used += strlen(names[i]) + 1;
        if (used > len - 4 && i > 0)
            break;
        first = i;
    }
    buf[0] = '\0';
    if (first < n - 1)
        snprintf(buf, len, ".../");
    for (int i = first; i >= 0; i--)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", names[i], i ? "/" : "");
    return buf;
}

const char *vtl_path_label(const cube_profile *p, const timeline *tl, int k, char *buf, size_t len)
{
    char other[512];
    int c = tl->path_cnode[k], same = 0;
    vtl_path_name(p, c, buf, len);
    for (int j = 0; j < tl->npaths && !same; j++)
        same = j != k && strcmp(vtl_path_name(p, tl->path_cnode[j], other, sizeof other), buf) == 0;
    if (same && c >= 0 && p->cnodes[c].line >= 0) {
        const char *file = p->cnodes[c].mod ? p->cnodes[c].mod : "line";
        const char *base = strrchr(file, '/');
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, " (%s:%ld)", base ? base + 1 : file, p->cnodes[c].line);
    }
    return buf;
}
