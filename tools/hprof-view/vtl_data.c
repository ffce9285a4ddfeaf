/*
 * vtl_data.c - the timeline member (report/merge/timeline_file.h; as text,
 * vtl_unpack.h) read into a timeline (vtl_data.h): ranks' histograms, MPI_Pcontrol
 * marks, the heaviest paths' series, and the --phase restriction.
 */
#include "tools/hprof-view/vtl_data.h"

#include "tools/hprof-view/vtl_unpack.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANKS (1 << 20)
#define MAX_BUCKETS 65536
#define MAX_PHASES 4096
#define F_NFIELDS 5

static double *at(const timeline *tl, int r, int f)
{
    return tl->v + ((size_t)r * F_NFIELDS + f) * tl->nb;
}
static double *path_at(const timeline *tl, int k, int r, int f)
{
    return tl->pv + (((size_t)k * tl->nranks + r) * 2 + f) * tl->nb;
}

static int field_index(const char *name)
{
    static const char *const names[F_NFIELDS] = { "mpi_ns", "comp_ns", "visits", "bytes_sent",
                                                  "bytes_received" };
    for (int f = 0; f < F_NFIELDS; f++)
        if (strcmp(name, names[f]) == 0)
            return f;
    return -1;
}

static int parse_values(double *dst, int n, char *p)
{
    char *end;
    for (int b = 0; b < n; b++) {
        dst[b] = strtod(p, &end);
        if (end == p)
            return -1;
        p = end;
    }
    return 0;
}

/* One "rank R FIELD v..." line; p points after "rank ". */
static int parse_rank_line(timeline *tl, char *p)
{
    char *end;
    long r = strtol(p, &end, 10);
    char name[32];
    int n = 0;
    if (end == p || r < 0 || r >= tl->nranks || sscanf(end, " %31s%n", name, &n) != 1)
        return -1;
    int f = field_index(name);
    if (f < 0)
        return 0; /* a field of a later version */
    return parse_values(at(tl, (int)r, f), tl->nb, end + n);
}

/* "paths K": room for K series; the size is bounded by the text. */
static int parse_paths(timeline *tl, const char *line, size_t textlen)
{
    int k;
    if (sscanf(line, "paths %d", &k) != 1 || k < 0 || k > VTL_MAX_PATHS || tl->pv)
        return -1;
    /* runs of zeros are short in the file: the values held are bounded as
     * the CUBE reader bounds its own (cube_reader.h: zlib's largest ratio
     * times the size, at least 256 MB) */
    double cells = (double)k * tl->nranks * 2 * tl->nb;
    if (cells * sizeof(double) > (textlen * 1032.0 > 256e6 ? textlen * 1032.0 : 256e6))
        return -1;
    tl->path_cnode = malloc(sizeof *tl->path_cnode * ((size_t)k + 1));
    tl->pv = calloc((size_t)k * (size_t)tl->nranks * 2 * (size_t)tl->nb + 1, sizeof *tl->pv);
    if (!tl->path_cnode || !tl->pv)
        return -1;
    for (int i = 0; i < k; i++)
        tl->path_cnode[i] = -1;
    tl->npaths = k;
    return 0;
}

/* "path P ID": the file's cnode id to its index. */
static int parse_path(timeline *tl, const cube_profile *p, const char *line)
{
    int k, id;
    if (sscanf(line, "path %d %d", &k, &id) != 2 || k < 0 || k >= tl->npaths)
        return -1;
    for (int c = 0; c < p->ncnodes; c++)
        if (p->cnodes[c].id == id)
            tl->path_cnode[k] = c;
    return 0;
}

/* Values with runs of zeros written 0*N (path_series lines). */
static int parse_runs(double *dst, int n, char *p)
{
    char *end;
    for (int b = 0; b < n;) {
        double v = strtod(p, &end);
        if (end == p)
            return -1;
        p = end;
        if (*p == '*') {
            long run = strtol(p + 1, &end, 10);
            if (end == p + 1 || v != 0 || run < 1 || run > n - b)
                return -1;
            p = end;
            b += (int)run; /* dst is zeroed */
        } else {
            dst[b++] = v;
        }
    }
    return 0;
}

static int parse_path_series(timeline *tl, char *line)
{
    int k, r, n = 0;
    char name[32];
    if (sscanf(line, "path_series %d %d %31s%n", &k, &r, name, &n) != 3 || k < 0 || k >= tl->npaths ||
        r < 0 || r >= tl->nranks)
        return -1;
    int f = strcmp(name, "mpi_ns") == 0 ? VTL_MPI : strcmp(name, "comp_ns") == 0 ? VTL_COMP : -1;
    return f < 0 ? 0 : parse_runs(path_at(tl, k, r, f), tl->nb, line + n);
}

static int parse_header(timeline *tl, char **lines, int nlines)
{
    double width_ns = 0;
    tl->nb = tl->nranks = 0;
    for (int i = 0; i < nlines && i < 8; i++) {
        sscanf(lines[i], "width_ns %lf", &width_ns);
        sscanf(lines[i], "buckets %d", &tl->nb);
        sscanf(lines[i], "ranks %d", &tl->nranks);
    }
    tl->width = width_ns * 1e-9;
    if (strncmp(lines[0], "hprof-timeline ", 15) != 0 || !(width_ns > 0) || tl->nb < 1 ||
        tl->nb > MAX_BUCKETS || tl->nranks < 1 || tl->nranks > MAX_RANKS)
        return -1;
    /* Each bucket of each row takes at least two characters of the file. */
    return (size_t)tl->nranks * F_NFIELDS * (size_t)tl->nb > (size_t)nlines * MAX_BUCKETS ? -1 : 0;
}

static int parse_line(timeline *tl, const cube_profile *p, char *s, size_t textlen)
{
    long long ns, level;
    int r;
    double spilled;
    if (strncmp(s, "rank ", 5) == 0)
        return parse_rank_line(tl, s + 5);
    if (strncmp(s, "paths ", 6) == 0)
        return parse_paths(tl, s, textlen);
    if (strncmp(s, "path ", 5) == 0)
        return parse_path(tl, p, s);
    if (strncmp(s, "path_series ", 12) == 0)
        return parse_path_series(tl, s);
    if (sscanf(s, "paths_spilled_ns %lf", &spilled) == 1)
        tl->spilled = spilled;
    else if (sscanf(s, "phases_dropped %d %lld", &r, &ns) == 2 && ns > 0)
        tl->phases_dropped += (double)ns, tl->dropped_ranks++;
    else if (sscanf(s, "phase %d %lld %lld", &r, &ns, &level) == 3 && level >= INT_MIN && level <= INT_MAX &&
             tl->nphases < MAX_PHASES)
        tl->phase[tl->nphases].rank = r, tl->phase[tl->nphases].level = (int)level,
        tl->phase[tl->nphases++].t = (double)ns * 1e-9;
    return 0;
}

static int parse(timeline *tl, const cube_profile *p, char *text, size_t textlen)
{
    int nlines = 0, cap = 0, rc = 0;
    char **lines = NULL;
    for (char *s = strtok(text, "\n"); s; s = strtok(NULL, "\n")) {
        if (nlines == cap) {
            char **l = realloc(lines, sizeof *l * (size_t)(cap = cap ? cap * 2 : 64));
            if (!l) {
                free(lines);
                return -1;
            }
            lines = l;
        }
        lines[nlines++] = s;
    }
    if (nlines < 5 || parse_header(tl, lines, nlines) < 0) {
        free(lines);
        return -1;
    }
    tl->v = calloc((size_t)tl->nranks * F_NFIELDS * (size_t)tl->nb, sizeof *tl->v);
    tl->phase = calloc(MAX_PHASES, sizeof *tl->phase);
    rc = tl->v && tl->phase ? 0 : -1;
    for (int i = 0; i < nlines && rc == 0; i++)
        rc = parse_line(tl, p, lines[i], textlen);
    free(lines);
    return rc;
}

/* Buckets up to the last one with anything in it (at least 1). */
static int used_buckets(const timeline *tl)
{
    int last = 0;
    for (int r = 0; r < tl->nranks; r++)
        for (int b = 0; b < tl->nb; b++)
            if (at(tl, r, VTL_MPI)[b] > 0 || at(tl, r, VTL_COMP)[b] > 0)
                last = b + 1 > last ? b + 1 : last;
    return last ? last : 1;
}

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

/* The member as text: the packed one unpacked, or an older profile's
 * text; NULL with *len 0 when the profile has neither, else 1. */
static char *member_text(const cube_profile *p, size_t *len)
{
    size_t zlen = 0;
    const unsigned char *z = cube_member(p, VTL_MEMBER_PACKED, &zlen);
    if (z) {
        char *text = vtl_unpack_text(z, zlen, len);
        *len = text ? *len : 1;
        return text;
    }
    const unsigned char *raw = cube_member(p, VTL_MEMBER, len);
    char *text = raw ? malloc(*len + 1) : NULL;
    if (!text) {
        *len = raw ? 1 : 0;
        return NULL;
    }
    memcpy(text, raw, *len);
    text[*len] = '\0';
    return text;
}

int vtl_load(const cube_profile *p, const view_opts *o, timeline *tl)
{
    size_t len = 0;
    memset(tl, 0, sizeof *tl);
    char *text = member_text(p, &len);
    if (!text)
        return len ? -1 : 0;
    int rc = parse(tl, p, text, len) < 0 ? -1 : 1;
    free(text);
    if (rc > 0) {
        tl->b0 = 0;
        tl->b1 = used_buckets(tl);
        if (o && o->phase && restrict_phase(tl, o->phase, o->err, o->errlen) < 0)
            rc = -2;
    }
    if (rc < 0)
        vtl_free(tl);
    return rc;
}

void vtl_free(timeline *tl)
{
    free(tl->v);
    free(tl->phase);
    free(tl->path_cnode);
    free(tl->pv);
    memset(tl, 0, sizeof *tl);
}

double vtl_sum(const timeline *tl, int r0, int r1, int f, int b0, int b1)
{
    double s = 0;
    for (int r = r0; r < r1; r++)
        for (int b = b0; b < b1; b++)
            s += at(tl, r, f)[b];
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
    for (int r = r0; r < r1; r++)
        for (int g = f == VTL_BOTH ? VTL_MPI : f; g <= (f == VTL_BOTH ? VTL_COMP : f); g++)
            for (int b = b0; b < b1; b++)
                s += path_at(tl, k, r, g)[b];
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
