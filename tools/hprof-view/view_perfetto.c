/*
 * view_perfetto.c - the timeline (hprof.timeline, vtl_data.h) as Chrome
 * trace-event JSON (--perfetto), which Perfetto's UI and chrome://tracing
 * open: one process track per rank ("rank R"), on it the counter "MPI %"
 * (MPI time over MPI and computation time, per bucket) and one counter per
 * heaviest call path ("path: NAME", the share of the rank's time the path
 * took in the bucket), and its MPI_Pcontrol marks as instant events.
 * Timestamps are microseconds from MPI_Init. Past PERFETTO_TRACKS ranks
 * a track stands for a group of consecutive ranks ("ranks A-B": the
 * group's MPI share, each path's mean share of a rank's time), and at
 * most PERFETTO_EVENTS counter events are written: more buckets are
 * combined into wider ones. At 100,000 ranks one track a rank made a
 * trace of 583 MB that no viewer opens.
 */
#include "tools/hprof-view/vtl_data.h"

#include <stdlib.h>
#include <string.h>

#define PERFETTO_PATHS 8
#define PERFETTO_TRACKS 1024
#define PERFETTO_EVENTS 2000000

/* Track t of n holds ranks first_rank(t) .. first_rank(t + 1) - 1. */
static int first_rank(const timeline *tl, int t, int ntracks)
{
    return (int)((long long)t * tl->nranks / ntracks);
}

static int track_of(const timeline *tl, int rank, int ntracks)
{
    return (int)(((long long)rank + 1) * ntracks - 1) / tl->nranks;
}

static void counter(FILE *out, int rank, double ts, const char *name, double v)
{
    fprintf(out, ",\n{\"ph\": \"C\", \"pid\": %d, \"ts\": %.3f, \"name\": ", rank, ts);
    view_print_json_string(out, name);
    fprintf(out, ", \"args\": {\"value\": %.6g}}", v);
}

static void rank_track(FILE *out, const timeline *tl, int t, int ntracks, int cols, char labels[][300],
                       int npaths)
{
    int r0 = first_rank(tl, t, ntracks), r1 = first_rank(tl, t + 1, ntracks);
    char name[48];
    if (r1 - r0 == 1)
        snprintf(name, sizeof name, "rank %d", r0);
    else
        snprintf(name, sizeof name, "ranks %d-%d", r0, r1 - 1);
    fprintf(out, ",\n{\"ph\": \"M\", \"pid\": %d, \"name\": \"process_name\", \"args\": {\"name\": \"%s\"}}",
            t, name);
    fprintf(
        out,
        ",\n{\"ph\": \"M\", \"pid\": %d, \"name\": \"process_sort_index\", \"args\": {\"sort_index\": %d}}",
        t, t);
    for (int c = 0, b0, b1; c <= cols; c++) {
        if (c < cols)
            vtl_column(tl, c, cols, &b0, &b1);
        else
            b0 = b1 = tl->b1; /* closes the last column */
        double ts = b0 * tl->width * 1e6, span = (b1 - b0) * tl->width * 1e9 * (r1 - r0);
        double share = c < cols ? vtl_share(tl, r0, r1, b0, b1) : 0;
        counter(out, t, ts, "MPI %", share > 0 ? 100 * share : 0);
        for (int k = 0; k < npaths; k++)
            counter(out, t, ts, labels[k],
                    c < cols ? vtl_path_sum(tl, k, r0, r1, VTL_BOTH, b0, b1) / span : 0);
    }
}

static void phase_marks(FILE *out, const timeline *tl, int ntracks)
{
    for (int i = 0; i < tl->nphases; i++) {
        int t = track_of(tl, tl->phase[i].rank, ntracks);
        if (tl->phase[i].rank != first_rank(tl, t, ntracks))
            continue; /* a group's first rank's marks stand for it */
        char name[48];
        snprintf(name, sizeof name, "MPI_Pcontrol(%d)", tl->phase[i].level);
        fprintf(out,
                ",\n{\"ph\": \"i\", \"s\": \"p\", \"pid\": %d, \"tid\": 0, \"ts\": %.3f, \"name\": \"%s\"}",
                t, tl->phase[i].t * 1e6, name);
    }
}

int view_perfetto(cube_profile *p, const view_opts *o, FILE *out)
{
    timeline tl;
    int got = vtl_load(p, o, &tl);
    if (got <= 0) {
        if (got != -2)
            snprintf(o->err, o->errlen,
                     got == 0
                         ? "--perfetto: this profile has no timeline (written with HPROF_TIME_BUCKETS=0, "
                           "by an hprof before 0.2, or by another tool)"
                         : "--perfetto: the time line member is malformed or too large");
        return VIEW_BAD_USAGE;
    }
    int npaths = tl.npaths < PERFETTO_PATHS ? tl.npaths : PERFETTO_PATHS;
    int ntracks = tl.nranks < PERFETTO_TRACKS ? tl.nranks : PERFETTO_TRACKS;
    int shown = tl.b1 - tl.b0, most = PERFETTO_EVENTS / (ntracks * (1 + npaths)) - 1;
    int cols = shown < most ? shown : most > 1 ? most : 1;
    char labels[PERFETTO_PATHS][300], name[256];
    for (int k = 0; k < npaths; k++)
        snprintf(labels[k], sizeof labels[k], "path: %s", vtl_path_label(p, &tl, k, name, sizeof name));
    fputs("{\"displayTimeUnit\": \"ms\", \"otherData\": {\"file\": ", out);
    view_print_json_string(out, o->path);
    fprintf(out, ", \"bucket_seconds\": %.9g},\n\"traceEvents\": [\n", tl.width * shown / cols);
    fputs("{\"ph\": \"M\", \"pid\": 0, \"name\": \"process_labels\", \"args\": {\"labels\": \"hprof "
          "timeline\"}}",
          out);
    for (int t = 0; t < ntracks; t++)
        rank_track(out, &tl, t, ntracks, cols, labels, npaths);
    phase_marks(out, &tl, ntracks);
    fputs("\n]}\n", out);
    vtl_free(&tl);
    return 0;
}
