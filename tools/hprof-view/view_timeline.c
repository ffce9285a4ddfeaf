/*
 * view_timeline.c - the profile over time (--timeline): the member
 * hprof.timeline (report/merge/timeline_file.h) as one strip of MPI share
 * per rank (or group of ranks), the MPI_Pcontrol phases under them, and
 * findings: stretches where a rank computes much longer than the others,
 * and moments where the MPI share of the whole run jumps.
 */
#include "view_timeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANKS (1 << 20)
#define MAX_BUCKETS 65536
#define MAX_ROWS 32            /* strips; more ranks are grouped */
#define MAX_PHASES 4096
#define SLOW_RATIO 1.5         /* "computes much longer": 1.5x the others' mean */
#define MIN_RUN 3              /* buckets, at least */

enum { F_MPI, F_COMP, F_NFIELDS = 5 };

static double *at(const timeline *tl, int r, int f) { return tl->v + ((size_t)r * F_NFIELDS + f) * tl->nb; }

static int field_index(const char *name)
{
    static const char *const names[F_NFIELDS] = { "mpi_ns", "comp_ns", "visits", "bytes_sent", "bytes_received" };
    for (int f = 0; f < F_NFIELDS; f++)
        if (strcmp(name, names[f]) == 0)
            return f;
    return -1;
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
        return 0;                   /* a field of a later version */
    p = end + n;
    double *dst = at(tl, (int)r, f);
    for (int b = 0; b < tl->nb; b++) {
        dst[b] = strtod(p, &end);
        if (end == p)
            return -1;
        p = end;
    }
    return 0;
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

static int parse(timeline *tl, char *text)
{
    int nlines = 0, cap = 0, rc = 0;
    char **lines = NULL;
    for (char *s = strtok(text, "\n"); s; s = strtok(NULL, "\n")) {
        if (nlines == cap) {
            char **l = realloc(lines, sizeof *l * (size_t)(cap = cap ? cap * 2 : 64));
            if (!l) { free(lines); return -1; }
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
    for (int i = 0; i < nlines && rc == 0; i++) {
        long long ns, level;
        int r;
        if (strncmp(lines[i], "rank ", 5) == 0)
            rc = parse_rank_line(tl, lines[i] + 5);
        else if (sscanf(lines[i], "phase %d %lld %lld", &r, &ns, &level) == 3 && tl->nphases < MAX_PHASES)
            tl->phase[tl->nphases].rank = r, tl->phase[tl->nphases].level = (int)level,
            tl->phase[tl->nphases++].t = (double)ns * 1e-9;
    }
    free(lines);
    return rc;
}

static double sum_range(const timeline *tl, int r0, int r1, int f, int b0, int b1);

int vtl_load(const cube_profile *p, timeline *tl)
{
    size_t len = 0;
    const unsigned char *raw = cube_member(p, VTL_MEMBER, &len);
    memset(tl, 0, sizeof *tl);
    if (!raw)
        return 0;
    char *text = malloc(len + 1);
    if (!text)
        return -1;
    memcpy(text, raw, len);
    text[len] = '\0';
    int rc = parse(tl, text) < 0 ? -1 : 1;
    free(text);
    if (rc < 0)
        vtl_free(tl);
    return rc;
}

void vtl_free(timeline *tl)
{
    free(tl->v);
    free(tl->phase);
    memset(tl, 0, sizeof *tl);
}

double vtl_share(const timeline *tl, int r0, int r1, int b0, int b1)
{
    double mpi = sum_range(tl, r0, r1, F_MPI, b0, b1), comp = sum_range(tl, r0, r1, F_COMP, b0, b1);
    return mpi + comp > 0 ? mpi / (mpi + comp) : -1;
}

/* Buckets up to the last one with anything in it. */
int vtl_used(const timeline *tl)
{
    int last = 0;
    for (int r = 0; r < tl->nranks; r++)
        for (int b = 0; b < tl->nb; b++)
            if (at(tl, r, F_MPI)[b] > 0 || at(tl, r, F_COMP)[b] > 0)
                last = b + 1 > last ? b + 1 : last;
    return last ? last : 1;
}

static double sum_range(const timeline *tl, int r0, int r1, int f, int b0, int b1)
{
    double s = 0;
    for (int r = r0; r < r1; r++)
        for (int b = b0; b < b1; b++)
            s += at(tl, r, f)[b];
    return s;
}

static void put_cell(FILE *out, const view_opts *o, double share)
{
    static const char *const blocks[] = { " ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588" };
    static const char ascii[] = " .:-=+*#%@";
    if (share < 0) {
        fputc(' ', out);
        return;
    }
    if (o->color) {
        int k = (int)lround(share * 8);
        fputs(blocks[k < 0 ? 0 : k > 8 ? 8 : k], out);
    } else {
        int k = (int)lround(share * 9);
        fputc(ascii[k < 0 ? 0 : k > 9 ? 9 : k], out);
    }
}

static void print_strips(const timeline *tl, const view_opts *o, int used, int cols, FILE *out)
{
    int rows = tl->nranks < MAX_ROWS ? tl->nranks : MAX_ROWS;
    for (int row = 0; row < rows; row++) {
        int r0 = row * tl->nranks / rows, r1 = (row + 1) * tl->nranks / rows;
        char label[32];
        if (r1 - r0 == 1)
            snprintf(label, sizeof label, "rank %d", r0);
        else
            snprintf(label, sizeof label, "ranks %d-%d", r0, r1 - 1);
        fprintf(out, "%-13s|", label);
        for (int c = 0; c < cols; c++) {
            int b0 = c * used / cols, b1 = (c + 1) * used / cols;
            put_cell(out, o, vtl_share(tl, r0, r1, b0, b1));
        }
        fprintf(out, "|\n");
    }
}

static void print_phases(const timeline *tl, int used, int cols, FILE *out)
{
    char *line = malloc((size_t)cols + 1);
    if (!line || tl->nphases == 0) {
        free(line);
        return;
    }
    memset(line, ' ', (size_t)cols);
    line[cols] = '\0';
    for (int i = 0; i < tl->nphases; i++) {
        if (tl->phase[i].rank != 0)
            continue;           /* rank 0's marks stand for all */
        int c = (int)(tl->phase[i].t / tl->width * cols / used);
        if (c >= 0 && c < cols)
            line[c] = (char)('0' + (tl->phase[i].level % 10 + 10) % 10);
    }
    fprintf(out, "%-13s|%s|  MPI_Pcontrol level, rank 0\n", "phases", line);
    free(line);
}

/* A stretch survives a gap (a busy machine makes them) of up to a quarter
 * of its length so far: a long imbalance is not cut in two, short noise
 * does not bridge far. */
static int gap_allowed(int start, int last)
{
    int g = (last - start + 1) / 4;
    return g > MIN_RUN ? g : MIN_RUN;
}

/* Stretches of at least MIN_RUN buckets and 5% of the run (with gaps, see
 * gap_allowed) where rank r computes SLOW_RATIO times the mean of the others,
 * bucket by bucket and over the whole stretch. */
/* Rank r computes SLOW_RATIO times the mean of the others in bucket b, and
 * for at least 5% of the bucket. */
static int is_slow(const timeline *tl, int r, int b)
{
    double mine = at(tl, r, F_COMP)[b];
    double others = (sum_range(tl, 0, tl->nranks, F_COMP, b, b + 1) - mine) / (tl->nranks - 1);
    return mine > SLOW_RATIO * others && mine > 0.05 * tl->width * 1e9;
}

/* A stretch starts where its slow buckets are dense: at least 3 in 4 of
 * the next `window` (a busy machine scatters a few before the real one). */
static int dense_start(const timeline *tl, int r, int start, int last, int window)
{
    for (; start < last; start++) {
        int n = 0, end = start + window <= last + 1 ? start + window : last + 1;
        for (int b = start; b < end; b++)
            n += is_slow(tl, r, b);
        if (is_slow(tl, r, start) && 4 * n >= 3 * (end - start))
            break;
    }
    return start;
}

static int report_stretch(const timeline *tl, int r, int start, int last, int min_run, FILE *out)
{
    double mine = sum_range(tl, r, r + 1, F_COMP, start, last + 1);
    double others = (sum_range(tl, 0, tl->nranks, F_COMP, start, last + 1) - mine) / (tl->nranks - 1);
    if (last - start + 1 < min_run || !(mine > SLOW_RATIO * others))
        return 0;
    fprintf(out, "  from %.3f s to %.3f s, rank %d computes %.1fx the mean of the other ranks\n",
            start * tl->width, (last + 1) * tl->width, r, others > 0 ? mine / others : INFINITY);
    return 1;
}

static int find_slow_ranks(const timeline *tl, int used, FILE *out, int budget)
{
    int found = 0, min_run = used / 20 > MIN_RUN ? used / 20 : MIN_RUN;
    for (int r = 0; r < tl->nranks && found < budget && tl->nranks > 1; r++) {
        int start = -1, last_slow = -1;
        for (int b = 0; b <= used; b++) {
            if (b < used && is_slow(tl, r, b)) {
                if (start < 0)
                    start = b;
                last_slow = b;
            } else if (start >= 0 && (b - last_slow > gap_allowed(start, last_slow) || b == used)) {
                start = dense_start(tl, r, start, last_slow, min_run);
                found += report_stretch(tl, r, start, last_slow, min_run, out);
                start = -1;
            }
        }
    }
    return found;
}

/* Moments where the whole run's MPI share moves by 30 points or more between
 * the 3 buckets before and the 3 after. */
static int find_share_jumps(const timeline *tl, int used, FILE *out, int budget)
{
    int found = 0, w = 3;
    for (int b = w; b + w <= used && found < budget; b++) {
        double m0 = sum_range(tl, 0, tl->nranks, F_MPI, b - w, b), c0 = sum_range(tl, 0, tl->nranks, F_COMP, b - w, b);
        double m1 = sum_range(tl, 0, tl->nranks, F_MPI, b, b + w), c1 = sum_range(tl, 0, tl->nranks, F_COMP, b, b + w);
        if (m0 + c0 <= 0 || m1 + c1 <= 0)
            continue;
        double s0 = m0 / (m0 + c0), s1 = m1 / (m1 + c1);
        if (fabs(s1 - s0) >= 0.3) {
            fprintf(out, "  at %.3f s, the MPI share of all ranks goes from %.0f%% to %.0f%%\n",
                    b * tl->width, 100 * s0, 100 * s1);
            found++;
            b += w;     /* one finding per jump */
        }
    }
    return found;
}

int view_timeline(cube_profile *p, const view_opts *o, FILE *out)
{
    timeline tl;
    int got = vtl_load(p, &tl);
    if (got <= 0) {
        snprintf(o->err, o->errlen, got == 0 ? "--timeline: this profile has no timeline (written with "
                 "HPROF_TIME_BUCKETS=0, by an hprof before 0.2, or by another tool)"
                 : "--timeline: the member hprof.timeline is malformed or too large");
        return VIEW_BAD_USAGE;
    }
    int used = vtl_used(&tl);
    int cols = used < 64 ? used : 64;
    fprintf(out, "timeline: %d ranks, %d buckets of %.4f s (0 .. %.3f s from MPI_Init); "
                 "MPI share per column (blank: idle)\n", tl.nranks, used, tl.width, used * tl.width);
    print_strips(&tl, o, used, cols, out);
    print_phases(&tl, used, cols, out);
    fprintf(out, "findings:\n");
    int n = find_slow_ranks(&tl, used, out, 8);
    n += find_share_jumps(&tl, used, out, 8);
    if (n == 0)
        fprintf(out, "  none: no rank computes %.1fx the others for %d buckets, no jump in MPI share\n",
                SLOW_RATIO, MIN_RUN);
    vtl_free(&tl);
    return 0;
}
