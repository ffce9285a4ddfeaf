/* vtl_text.c - the text member hprof.timeline read into the store (vtl_text.h). */
#include "tools/hprof-view/vtl_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANKS (1 << 20)
#define MAX_BUCKETS 65536

static int field_index(const char *name)
{
    static const char *const names[VTL_FIELDS] = { "mpi_ns", "comp_ns", "visits", "bytes_sent",
                                                   "bytes_received" };
    for (int f = 0; f < VTL_FIELDS; f++)
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
    uint32_t id;
    double *v = vtl_store_series(tl, &id);
    if (!v)
        return -1;
    tl->row[(size_t)r * VTL_FIELDS + (size_t)f] = id;
    return parse_values(v, tl->nb, end + n);
}

/* "paths K": room for K series a rank; the size is bounded by the text. */
static int parse_paths(timeline *tl, const char *line, size_t textlen)
{
    int k;
    if (sscanf(line, "paths %d", &k) != 1 || k < 0 || k > VTL_MAX_PATHS || tl->prow)
        return -1;
    /* as the values were held before a series was held once: runs of
     * zeros are short in the file, the CUBE reader's bound (cube_reader.h:
     * zlib's largest ratio times the size, at least 256 MB) */
    double cells = (double)k * tl->nranks * 2 * tl->nb;
    if (cells * sizeof(double) > (textlen * 1032.0 > 256e6 ? textlen * 1032.0 : 256e6))
        return -1;
    return vtl_store_paths(tl, k);
}

/* "path P ID": the file's cnode id of path P. */
static int parse_path(timeline *tl, const char *line)
{
    int k, id;
    if (sscanf(line, "path %d %d", &k, &id) != 2 || k < 0 || k >= tl->npaths)
        return -1;
    tl->path_cnode[k] = id;
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
    if (f < 0)
        return 0;
    uint32_t id;
    double *v = vtl_store_series(tl, &id);
    if (!v)
        return -1;
    tl->prow[((size_t)k * (size_t)tl->nranks + (size_t)r) * 2 + (size_t)f] = id;
    return parse_runs(v, tl->nb, line + n);
}

static int parse_header(timeline *tl, char **lines, int nlines)
{
    double width_ns = 0;
    int nb = 0, nranks = 0;
    for (int i = 0; i < nlines && i < 8; i++) {
        sscanf(lines[i], "width_ns %lf", &width_ns);
        sscanf(lines[i], "buckets %d", &nb);
        sscanf(lines[i], "ranks %d", &nranks);
    }
    if (strncmp(lines[0], "hprof-timeline ", 15) != 0 || !(width_ns > 0) || nb < 1 || nb > MAX_BUCKETS ||
        nranks < 1 || nranks > MAX_RANKS)
        return -1;
    /* Each bucket of each row takes at least two characters of the file. */
    if ((size_t)nranks * VTL_FIELDS * (size_t)nb > (size_t)nlines * MAX_BUCKETS)
        return -1;
    return vtl_store_init(tl, width_ns * 1e-9, nb, nranks);
}

static int parse_line(timeline *tl, char *s, size_t textlen)
{
    long long ns, level;
    int r;
    double spilled;
    if (strncmp(s, "rank ", 5) == 0)
        return parse_rank_line(tl, s + 5);
    if (strncmp(s, "paths ", 6) == 0)
        return parse_paths(tl, s, textlen);
    if (strncmp(s, "path ", 5) == 0)
        return parse_path(tl, s);
    if (strncmp(s, "path_series ", 12) == 0)
        return parse_path_series(tl, s);
    if (sscanf(s, "paths_spilled_ns %lf", &spilled) == 1)
        tl->spilled = spilled;
    else if (sscanf(s, "phases_dropped %d %lld", &r, &ns) == 2 && ns > 0)
        tl->phases_dropped += (double)ns, tl->dropped_ranks++;
    else if (sscanf(s, "phase %d %lld %lld", &r, &ns, &level) == 3)
        vtl_store_phase(tl, r, (double)ns, level);
    return 0;
}

int vtl_text_read(char *text, size_t len, timeline *tl)
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
    rc = nlines < 5 || parse_header(tl, lines, nlines) < 0 ? -1 : 0;
    for (int i = 0; i < nlines && rc == 0; i++)
        rc = parse_line(tl, lines[i], len);
    free(lines);
    return rc;
}
