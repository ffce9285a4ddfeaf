/*
 * view_timeline.c - the profile over time (--timeline): the member
 * hprof.timeline (report/merge/timeline_file.h) as one strip of MPI share
 * per rank (or group of ranks), the MPI_Pcontrol phases under them, one
 * strip per heaviest call path (its share of all ranks' time), and the
 * findings (vtl_findings.c). With --phase, only that phase's buckets.
 */
#include "tools/hprof-view/vtl_data.h"
#include "tools/hprof-view/vtl_findings.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROWS 32 /* strips; more ranks are grouped */
#define MAX_COLS 64
#define SMALL_PATH 0.001 /* paths with less of the time shown are not drawn */

/* A column's MPI share: blank where nothing was measured (idle), '_'
 * where the ranks only computed, then rising with the share. */
static void put_cell(FILE *out, const view_opts *o, double share)
{
    static const char *const blocks[] = { "_",      "\u2581", "\u2582", "\u2583", "\u2584",
                                          "\u2585", "\u2586", "\u2587", "\u2588" };
    static const char ascii[] = "_.:-=+*#%@";
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

/* The labels' column: every strip's bar starts in it. 13 holds "ranks
 * 9990-9998"; past 10,000 ranks the groups' labels are wider. */
static int label_width(const timeline *tl)
{
    char widest[32];
    int n = snprintf(widest, sizeof widest, "ranks %d-%d", tl->nranks - 1, tl->nranks - 1);
    return n > 13 ? n : 13;
}

static void print_strips(const timeline *tl, const view_opts *o, int cols, int lw, FILE *out)
{
    int rows = tl->nranks < MAX_ROWS ? tl->nranks : MAX_ROWS;
    for (int row = 0; row < rows; row++) {
        int r0 = row * tl->nranks / rows, r1 = (row + 1) * tl->nranks / rows, b0, b1;
        char label[32];
        if (r1 - r0 == 1)
            snprintf(label, sizeof label, "rank %d", r0);
        else
            snprintf(label, sizeof label, "ranks %d-%d", r0, r1 - 1);
        fprintf(out, "%-*s|", lw, label);
        for (int c = 0; c < cols; c++) {
            vtl_column(tl, c, cols, &b0, &b1);
            put_cell(out, o, vtl_share(tl, r0, r1, b0, b1));
        }
        fprintf(out, "|\n");
    }
}

static void print_phases(const timeline *tl, int cols, int lw, FILE *out)
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
            continue;                                     /* rank 0's marks stand for all */
        long b = vtl_bucket(tl, tl->phase[i].t) - tl->b0; /* as --phase rounds */
        long c = (long)floor((double)b * cols / (tl->b1 - tl->b0));
        if (c >= 0 && c < cols)
            line[c] = (char)('0' + (tl->phase[i].level % 10 + 10) % 10);
    }
    fprintf(out, "%-*s|%s|  MPI_Pcontrol level, rank 0\n", lw, "phases", line);
    double last = -1;
    for (int i = 0; i < tl->nphases; i++)
        if (tl->phase[i].rank == 0 && tl->phase[i].t > last)
            last = tl->phase[i].t;
    if (tl->phases_dropped > 0)
        fprintf(out,
                "%-*s(%.0f MPI_Pcontrol marks on %d rank%s not kept, past the first %d a rank: rank 0's "
                "phases end at %.3f s)\n",
                lw, "", tl->phases_dropped, tl->dropped_ranks, tl->dropped_ranks == 1 ? "" : "s",
                VTL_RUNTIME_PHASES, last);
    free(line);
}

/* One strip per chosen path: its share of all ranks' time per column,
 * then its time over the buckets shown and its name. */
static void print_paths(const cube_profile *p, const timeline *tl, const view_opts *o, int cols, int lw,
                        FILE *out)
{
    if (tl->npaths == 0)
        return;
    double total = vtl_sum(tl, 0, tl->nranks, VTL_MPI, tl->b0, tl->b1) +
                   vtl_sum(tl, 0, tl->nranks, VTL_COMP, tl->b0, tl->b1);
    fprintf(out, "heaviest call paths: share of all ranks' time per column, time shown, path\n");
    int small = 0;
    for (int k = 0; k < tl->npaths; k++) {
        double mine = vtl_path_sum(tl, k, 0, tl->nranks, VTL_BOTH, tl->b0, tl->b1);
        char label[16], name[160];
        if (!(mine > SMALL_PATH * total)) {
            small++;
            continue;
        }
        snprintf(label, sizeof label, "path %d", k);
        fprintf(out, "%-*s|", lw, label);
        for (int c = 0; c < cols; c++) {
            int b0, b1;
            vtl_column(tl, c, cols, &b0, &b1);
            double all =
                vtl_sum(tl, 0, tl->nranks, VTL_MPI, b0, b1) + vtl_sum(tl, 0, tl->nranks, VTL_COMP, b0, b1);
            put_cell(out, o, all > 0 ? vtl_path_sum(tl, k, 0, tl->nranks, VTL_BOTH, b0, b1) / all : -1);
        }
        fprintf(out, "| %8.3f s %5.1f%%  %s\n", mine * 1e-9, total > 0 ? 100 * mine / total : 0,
                vtl_path_label(p, tl, k, name, sizeof name));
    }
    if (small)
        fprintf(out, "(%d more with under %.1f%% each)\n", small, 100 * SMALL_PATH);
    if (tl->spilled > 0)
        fprintf(out, "(%.3f s of the run could be given no path: the runtime's path logs were full)\n",
                tl->spilled * 1e-9);
}

static void print_findings(const cube_profile *p, const timeline *tl, FILE *out)
{
    vtl_stretch s[8];
    fprintf(out, "findings:\n");
    int n = vtl_slow_stretches(tl, p, s, 8);
    for (int i = 0; i < n; i++) {
        char name[160];
        fprintf(out, "  from %.3f s to %.3f s, rank %d computes %.1fx the mean of the other ranks",
                s[i].b0 * tl->width, s[i].b1 * tl->width, s[i].rank, s[i].ratio);
        if (s[i].path >= 0 && isfinite(s[i].path_ratio))
            fprintf(out, ", under %s (%.1fx there)", vtl_path_label(p, tl, s[i].path, name, sizeof name),
                    s[i].path_ratio);
        else if (s[i].path >= 0)
            fprintf(out, ", under %s (the others: none there)",
                    vtl_path_label(p, tl, s[i].path, name, sizeof name));
        fputc('\n', out);
    }
    n += vtl_share_jumps(tl, out, 8);
    if (n == 0)
        fprintf(out, "  none: no rank computes 1.5x the others for 3 buckets, no jump in MPI share\n");
}

int view_timeline(cube_profile *p, const view_opts *o, FILE *out)
{
    timeline tl;
    int got = vtl_load(p, o, &tl);
    if (got <= 0) {
        if (got != -2)
            snprintf(o->err, o->errlen,
                     got == 0 ? "--timeline: this profile has no timeline (written with "
                                "HPROF_TIME_BUCKETS=0, by an hprof before 0.2, or by another tool)"
                              : "--timeline: the time line member is malformed or too large");
        return VIEW_BAD_USAGE;
    }
    int shown = tl.b1 - tl.b0, cols = shown < MAX_COLS ? shown : MAX_COLS;
    fprintf(out, "timeline: %d ranks, %d buckets of %.4f s (%.3f .. %.3f s from MPI_Init)", tl.nranks, shown,
            tl.width, tl.b0 * tl.width, tl.b1 * tl.width);
    if (tl.phased)
        fprintf(out, ", phase %d (MPI_Pcontrol(%d) on)", tl.level, tl.level);
    fprintf(out, "; MPI share per column (blank: idle, _: computing only)\n");
    int lw = label_width(&tl);
    print_strips(&tl, o, cols, lw, out);
    print_phases(&tl, cols, lw, out);
    print_paths(p, &tl, o, cols, lw, out);
    print_findings(p, &tl, out);
    vtl_free(&tl);
    return 0;
}
