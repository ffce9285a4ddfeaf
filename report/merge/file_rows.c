#include "report/merge/file_rows.h"

#include "report/profile/metrics.h"

#define MOST_PARTS 256 /* parts of a row: an aggregator's and its children's */

void file_rows_init(file_rows *f, cube_writer *w, int nmetrics, int nglobal, const unsigned char *present,
                    size_t bytes, const int *npresent)
{
    *f = (file_rows){ w, -1, 0, nmetrics, nglobal, present, bytes, npresent };
}

static void end_metric(file_rows *f)
{
    if (f->w && f->metric >= 0 &&
        (cube_writer_metric_rows(f->w, f->next, f->nglobal - f->next, NULL) != 0 ||
         cube_writer_metric_end(f->w) != 0))
        f->w = NULL;
}

/* Ends the metric being written and begins m (those between: rows of zeros). */
static void begin_metric(file_rows *f, int m)
{
    while (f->w && f->metric < m) {
        end_metric(f);
        f->metric++;
        f->next = 0;
        /* rows of an INCLUSIVE metric would not be in file id order */
        if (f->w &&
            (metrics_defs()[f->metric].inclusive ||
             cube_writer_metric_begin_sparse(f->w, f->metric, f->present + (size_t)f->metric * f->bytes,
                                             f->npresent[f->metric]) != 0))
            f->w = NULL;
    }
}

void file_rows_write(file_rows *f, const chunk_units *u, const piece_view *v, int n)
{
    cube_row_piece parts[MOST_PARTS];
    for (int i = 0; i < n; i++)
        if (v[i].failed || n > MOST_PARTS)
            f->w = NULL;
    for (int k = 0; f->w && k < u->n; k++) {
        begin_metric(f, u->metric[k]);
        int nonzero = 0;
        for (int i = 0; i < n; i++) {
            parts[i] = piece_view_row(&v[i], k);
            nonzero |= v[i].entries[k].nonzero != 0;
        }
        if (f->w && cube_writer_metric_row_pieces(f->w, u->row[k], parts, n, nonzero) != 0)
            f->w = NULL;
        f->next = u->row[k] + 1;
    }
}

int file_rows_finish(file_rows *f)
{
    begin_metric(f, f->nmetrics - 1); /* metrics without rows: none, or an empty profile */
    end_metric(f);
    return f->w ? 0 : -1;
}
