/*
 * view_perfetto.c - the timeline (hprof.timeline, vtl_data.h) as Chrome
 * trace-event JSON (--perfetto), which Perfetto's UI and chrome://tracing
 * open: one process track per rank ("rank R"), on it the counter "MPI %"
 * (MPI time over MPI and computation time, per bucket) and one counter per
 * heaviest call path ("path: NAME", the share of the rank's time the path
 * took in the bucket), and its MPI_Pcontrol marks as instant events.
 * Timestamps are microseconds from MPI_Init. At most PERFETTO_CELLS
 * (rank, bucket) cells: more buckets are combined into wider ones.
 */
#include "tools/hprof-view/vtl_data.h"

#include <stdlib.h>
#include <string.h>

#define PERFETTO_PATHS 8
#define PERFETTO_CELLS 500000

static void counter(FILE *out, int rank, double ts, const char *name, double v)
{
    fprintf(out, ",\n{\"ph\": \"C\", \"pid\": %d, \"ts\": %.3f, \"name\": ", rank, ts);
    view_print_json_string(out, name);
    fprintf(out, ", \"args\": {\"value\": %.6g}}", v);
}

static void rank_track(FILE *out, const timeline *tl, int r, int cols, char labels[][300], int npaths)
{
    fprintf(out,
            ",\n{\"ph\": \"M\", \"pid\": %d, \"name\": \"process_name\", \"args\": {\"name\": \"rank %d\"}}",
            r, r);
    fprintf(
        out,
        ",\n{\"ph\": \"M\", \"pid\": %d, \"name\": \"process_sort_index\", \"args\": {\"sort_index\": %d}}",
        r, r);
    for (int c = 0, b0, b1; c <= cols; c++) {
        if (c < cols)
            vtl_column(tl, c, cols, &b0, &b1);
        else
            b0 = b1 = tl->b1; /* closes the last column */
        double ts = b0 * tl->width * 1e6, span = (b1 - b0) * tl->width * 1e9;
        double share = c < cols ? vtl_share(tl, r, r + 1, b0, b1) : 0;
        counter(out, r, ts, "MPI %", share > 0 ? 100 * share : 0);
        for (int k = 0; k < npaths; k++)
            counter(out, r, ts, labels[k],
                    c < cols ? vtl_path_sum(tl, k, r, r + 1, VTL_BOTH, b0, b1) / span : 0);
    }
}

static void phase_marks(FILE *out, const timeline *tl)
{
    for (int i = 0; i < tl->nphases; i++) {
        char name[48];
        snprintf(name, sizeof name, "MPI_Pcontrol(%d)", tl->phase[i].level);
        fprintf(out,
                ",\n{\"ph\": \"i\", \"s\": \"p\", \"pid\": %d, \"tid\": 0, \"ts\": %.3f, \"name\": \"%s\"}",
                tl->phase[i].rank, tl->phase[i].t * 1e6, name);
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
    int shown = tl.b1 - tl.b0, most = PERFETTO_CELLS / tl.nranks;
    int cols = shown < most ? shown : most > 1 ? most : 1;
    int npaths = tl.npaths < PERFETTO_PATHS ? tl.npaths : PERFETTO_PATHS;
    char labels[PERFETTO_PATHS][300], name[256];
    for (int k = 0; k < npaths; k++)
        snprintf(labels[k], sizeof labels[k], "path: %s", vtl_path_label(p, &tl, k, name, sizeof name));
    fputs("{\"displayTimeUnit\": \"ms\", \"otherData\": {\"file\": ", out);
    view_print_json_string(out, o->path);
    fprintf(out, ", \"bucket_seconds\": %.9g},\n\"traceEvents\": [\n", tl.width * shown / cols);
    fputs("{\"ph\": \"M\", \"pid\": 0, \"name\": \"process_labels\", \"args\": {\"labels\": \"hprof "
          "timeline\"}}",
          out);
    for (int r = 0; r < tl.nranks; r++)
        rank_track(out, &tl, r, cols, labels, npaths);
    phase_marks(out, &tl);
    fputs("\n]}\n", out);
    vtl_free(&tl);
    return 0;
}
