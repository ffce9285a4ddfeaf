/*
 * collect.c - values from the ranks to rank 0, sparse on the wire.
 *
 * Right after a rank's profile is built, its values become one column per
 * metric: the cells (cnode, thread, value) whose bits are not all zero, in
 * one pass over its [cnode][thread][metric] array, which is then freed (a
 * million call paths x 16 metrics are 128 MB of mostly zeros). Once the
 * file's ids are known, each column is sorted into file id order; per
 * chunk of rows, a rank's cells are then a contiguous run of each column
 * and go as they are to its aggregator, which makes the group's parts of
 * the rows (group_rows.c); the parts go up the aggregators' tree to rank
 * 0, which writes them. Every rank knows every metric's rows with a value
 * (one reduction of bitmaps), so all cut the same chunks. Zeros are what
 * the writer would have got for the cells not sent: the file holds the
 * values it held with dense rows.
 */
#include "report/merge/collect.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/merge/agg_tree.h"
#include "report/merge/file_rows.h"
#include "report/merge/group_rows.h"
#include "report/merge/piece_msg.h"
#include "report/profile/metrics.h"
#include "report/merge/quiet.h"

#define CHUNK_VALUES (1 << 20) /* values of one chunk: 8 MiB of rows on rank 0 */

/* row: this rank's cnode id, then the file's (sort_column) */
typedef value_cell cell;

typedef struct column {
    cell *cells;
    size_t n, cap, next; /* next: the first cell not sent yet */
} column;

struct value_columns {
    column *cols; /* per metric */
    int ncols;
    int failed; /* a value could not be kept */
};

/* Every rank the same: the rows of each metric that hold a value on some
 * rank (the writer stores those, cube_row_stored), the file's locations,
 * the rows of a chunk. */
typedef struct value_plan {
    int nmetrics, nglobal;
    size_t bytes; /* of a metric's bitmap */
    unsigned char *present, *mine;
    int *npresent;
    int *all_rows; /* the metric's every row stored (cube_row_stored) */
    long long nlocs;
    int zlib, chunk_rows;
    int *unit_metric, *unit_row; /* the chunk's rows */
} value_plan;

typedef struct collector {
    const collect_job *job;
    column *cols; /* job->columns' */
    int ncols;
    value_plan plan;
} collector;

static int push(column *col, int row, int thread, double v)
{
    if (col->n == col->cap) {
        size_t cap = col->cap ? col->cap * 2 : 1024;
        cell *p = realloc(col->cells, cap * sizeof *p);
        if (!p)
            return -1;
        col->cells = p;
        col->cap = cap;
    }
    col->cells[col->n++] = (cell){ row, thread, v };
    return 0;
}

value_columns *collect_columns(local_profile *lp)
{
    value_columns *vc = calloc(1, sizeof *vc);
    int n = lp->defs ? lp->defs->ncnodes : 0, rc = -1;
    if (vc && (vc->cols = calloc((size_t)metrics_count() + 1, sizeof *vc->cols)) != NULL) {
        vc->ncols = metrics_count();
        rc = 0;
    }
    for (int i = 0; rc == 0 && lp->values && i < n && i < lp->values_cnodes; i++) {
        for (int t = 0; t < lp->nthreads; t++) {
            const double *vals = local_profile_values(lp, i, t);
            for (int m = 0; rc == 0 && m < vc->ncols; m++) {
                double v = metrics_stored(vals, m);
                uint64_t bits;
                memcpy(&bits, &v, sizeof bits);
                if (bits)
                    rc = push(&vc->cols[m], i, t, v);
            }
        }
    }
    if (vc)
        vc->failed = rc != 0;
    free(lp->values);
    lp->values = NULL;
    lp->values_cnodes = lp->values_cap = 0;
    return vc;
}

void collect_columns_free(value_columns *vc)
{
    for (int m = 0; vc && vc->cols && m < vc->ncols; m++)
        free(vc->cols[m].cells);
    if (vc)
        free(vc->cols);
    free(vc);
}

/* Cells by file id instead of this rank's cnode id, in file id order (a
 * counting sort: count holds nglobal + 1 zeros, and is left so); cells of
 * cnodes that were not placed are dropped. 0 or -1. */
static int sort_column(column *col, const int *ids, int nlocal, int nglobal, int *count)
{
    size_t kept = 0;
    for (size_t k = 0; k < col->n; k++) {
        cell *e = &col->cells[k];
        e->row = e->row < nlocal && ids && ids[e->row] < nglobal ? ids[e->row] : -1;
        if (e->row >= 0) {
            count[e->row + 1]++;
            kept++;
        }
    }
    cell *sorted = malloc((kept + 1) * sizeof *sorted);
    for (int g = 0; g < nglobal; g++)
        count[g + 1] += count[g];
    for (size_t k = 0; sorted && k < col->n; k++)
        if (col->cells[k].row >= 0)
            sorted[count[col->cells[k].row]++] = col->cells[k];
    memset(count, 0, ((size_t)nglobal + 1) * sizeof *count);
    free(col->cells);
    col->cells = sorted;
    col->n = col->cap = sorted ? kept : 0;
    return sorted ? 0 : -1;
}

int collect_columns_sort(value_columns *vc, const int *ids, int nlocal, int nglobal)
{
    int *count = calloc((size_t)nglobal + 1, sizeof *count), rc = count ? 0 : -1;
    for (int m = 0; rc == 0 && m < vc->ncols; m++)
        if (vc->cols[m].n)
            rc = sort_column(&vc->cols[m], ids, nlocal, nglobal, count);
    free(count);
    return rc;
}

const value_cell *collect_column(const value_columns *vc, int m, size_t *n)
{
    *n = vc && m >= 0 && m < vc->ncols ? vc->cols[m].n : 0;
    return *n ? vc->cols[m].cells : NULL;
}

/* ---- the plan: which rows, in which chunks ---------------------------------- */


static void mark_row(unsigned char *bitmap, int row)
{
    bitmap[row / 8] |= (unsigned char)(1u << (row % 8));
}

static int bitmap_count(const unsigned char *bitmap, size_t bytes)
{
    int n = 0;
    for (size_t b = 0; b < bytes; b++)
        n += __builtin_popcount(bitmap[b]);
    return n;
}

static int stored(const value_plan *p, int m, int row)
{
    if (p->all_rows[m])
        return 1;
    if (p->npresent[m] <= 0)
        return row == 0; /* the writer's row of zeros */
    return (p->present[(size_t)m * p->bytes + (size_t)row / 8] >> (row % 8)) & 1;
}

/* Collective: the failures so far and the file's locations, summed in one
 * reduction, then the bitmaps of all metrics in another. 0 or -1. */
static int plan_build(collector *c, int ok)
{
    const collect_job *j = c->job;
    value_plan *p = &c->plan;
    p->nmetrics = metrics_count();
    p->nglobal = j->nglobal;
    p->bytes = ((size_t)j->nglobal + 7) / 8 + 1;
    size_t all = p->bytes * (size_t)p->nmetrics;
    p->mine = calloc(all + 1, 1);
    p->present = calloc(all + 1, 1);
    p->npresent = calloc((size_t)p->nmetrics + 1, sizeof(int));
    p->all_rows = calloc((size_t)p->nmetrics + 1, sizeof(int));
    for (int m = 0; ok && p->mine && m < c->ncols; m++)
        for (size_t k = 0; k < c->cols[m].n; k++)
            mark_row(p->mine + (size_t)m * p->bytes, c->cols[m].cells[k].row);
    ok = ok && p->mine && p->present && p->npresent && p->all_rows && all <= INT32_MAX;
    long long mine[2] = { !ok, (long long)j->nthreads * j->simulate }, sum[2] = { 1, 0 };
    quiet_allreduce(mine, sum, 2, MPI_LONG_LONG, MPI_SUM, j->comm);
    if (sum[0] != 0)
        return -1;
    quiet_allreduce(p->mine, p->present, (int)all, MPI_UNSIGNED_CHAR, MPI_BOR, j->comm);
    static const unsigned char none = 0;
    long long units = 0;
    for (int m = 0; m < p->nmetrics; m++) {
        p->npresent[m] = bitmap_count(p->present + (size_t)m * p->bytes, p->bytes);
        /* a row not marked, of a metric said to have one: stored all the same (MIN/MAXDOUBLE) */
        p->all_rows[m] = cube_row_stored(metrics_defs()[m].dtype, &none, 1, 0);
        units += p->all_rows[m] ? p->nglobal : p->npresent[m] > 0 ? p->npresent[m] : 1;
    }
    p->nlocs = sum[1];
    p->zlib = cube_rows_zlib(j->compress, p->nlocs);
    long long rows = CHUNK_VALUES / (p->nlocs > 0 ? p->nlocs : 1);
    p->chunk_rows = rows < 1 ? 1 : rows > units ? (units > 0 ? (int)units : 1) : (int)rows;
    p->unit_metric = malloc((size_t)p->chunk_rows * sizeof(int));
    p->unit_row = malloc((size_t)p->chunk_rows * sizeof(int));
    return 0; /* the chunk's arrays are checked with the group's (group_setup) */
}

static void plan_free(value_plan *p)
{
    free(p->mine), free(p->present), free(p->npresent), free(p->all_rows), free(p->unit_metric),
        free(p->unit_row);
}

/* The chunk's rows from (*m, *row) on, which move past them. */
static chunk_units next_chunk(value_plan *p, int *m, int *row)
{
    chunk_units u = { p->unit_metric, p->unit_row, 0 };
    for (; *m < p->nmetrics && u.n < p->chunk_rows; *row = 0, ++*m) {
        for (; *row < p->nglobal && u.n < p->chunk_rows; ++*row)
            if (stored(p, *m, *row)) {
                p->unit_metric[u.n] = *m;
                p->unit_row[u.n++] = *row;
            }
        if (*row < p->nglobal)
            break; /* the chunk is full within this metric */
    }
    return u;
}

/* ---- this rank's cells of a chunk --------------------------------------------- */

typedef struct packet {
    uint64_t *w; /* ncols counts, then the cells */
    size_t bytes;
} packet;

/* The cells of the chunk's rows of each metric: those of its column, from
 * where the last chunk ended, up to the chunk's last row of it. */
static packet pack_chunk(collector *c, const chunk_units *u)
{
    size_t head = sizeof(uint64_t) * (size_t)c->ncols, cells = 0;
    packet p = { calloc(1, head + 1), head };
    for (int k = 0; p.w && k < u->n; k++) {
        column *col = &c->cols[u->metric[k]];
        size_t first = col->next;
        while (col->next < col->n && col->cells[col->next].row <= u->row[k])
            col->next++;
        p.w[u->metric[k]] += col->next - first;
        cells += col->next - first;
    }
    uint64_t *w = p.w ? realloc(p.w, head + cells * sizeof(cell) + 1) : NULL;
    if (!w) {
        free(p.w);
        return (packet){ NULL, 0 }; /* the aggregator takes it for a failure */
    }
    p.w = w;
    char *x = (char *)p.w + head;
    for (int m = 0; m < c->ncols; m++) {
        size_t n = p.w[m];
        if (n)
            memcpy(x, c->cols[m].cells + c->cols[m].next - n, n * sizeof(cell));
        x += n * sizeof(cell);
    }
    p.bytes = head + cells * sizeof(cell);
    return p;
}

/* ---- the chunks through the tree ------------------------------------------------ */

/* An aggregator: its group's message and its children's, in range order;
 * rank 0 writes them, the others join them and send them up. */
static void aggregate(collector *c, const agg_tree *t, group_rows *g, void *const *packets,
                      const size_t *sizes, const chunk_units *u, file_rows *f)
{
    int child[AGG_FANIN * 8], nchild = agg_tree_children(t, child, AGG_FANIN * 8);
    void *msgs[AGG_FANIN * 8 + 1] = { 0 };
    size_t lens[AGG_FANIN * 8 + 1] = { 0 };
    piece_view views[AGG_FANIN * 8 + 1];
    piece_msg own;
    group_rows_make(g, packets, sizes, c->ncols, u, &own);
    msgs[0] = own.buf;
    lens[0] = own.len;
    for (int i = 0; i < nchild; i++)
        agg_tree_recv(t, child[i], &msgs[i + 1], &lens[i + 1]);
    for (int i = 0; i <= nchild; i++)
        piece_view_of(&views[i], msgs[i], lens[i], u->n);
    if (t->place == 0) {
        file_rows_write(f, u, views, nchild + 1);
    } else {
        piece_msg up;
        piece_msg_join(&up, views, nchild + 1, u->n);
        agg_tree_send_up(t, up.buf, up.len);
        piece_msg_free(&up);
    }
    for (int i = 0; i <= nchild; i++) {
        piece_view_free(&views[i]);
        if (i > 0)
            free(msgs[i]);
    }
    piece_msg_free(&own);
}

static void exchange_chunks(collector *c, const agg_tree *t, group_rows *g, file_rows *f)
{
    int leads = t->group_rank == 0, n = t->group_size;
    void **blobs = leads ? calloc((size_t)n, sizeof *blobs) : NULL;
    size_t *sizes = leads ? calloc((size_t)n, sizeof *sizes) : NULL;
    for (int m = 0, row = 0; m < c->plan.nmetrics;) {
        chunk_units u = next_chunk(&c->plan, &m, &row);
        if (u.n == 0)
            break;
        packet mine = pack_chunk(c, &u);
        agg_tree_gather(t, mine.w, mine.bytes, blobs, sizes);
        free(mine.w);
        if (leads)
            aggregate(c, t, g, blobs, sizes, &u, f);
        for (int i = 0; leads && blobs && i < n; i++) {
            free(blobs[i]);
            blobs[i] = NULL;
        }
    }
    free(blobs), free(sizes);
}

/* Collective: the members' threads, at their aggregator, which gets ready. */
static int group_setup(const collect_job *j, const agg_tree *t, const value_plan *p, group_rows *g,
                       int **nthreads)
{
    int leads = t->group_rank == 0, n = t->group_size, ok = 1;
    void **blobs = leads ? calloc((size_t)n, sizeof *blobs) : NULL;
    size_t *sizes = leads ? calloc((size_t)n, sizeof *sizes) : NULL;
    *nthreads = leads ? calloc((size_t)n + 1, sizeof(int)) : NULL;
    if (leads && !(blobs && sizes && *nthreads)) {
        free(blobs), free(sizes);
        blobs = NULL, sizes = NULL, ok = 0;
    }
    ok &= agg_tree_gather(t, &j->nthreads, sizeof j->nthreads, blobs, sizes) == 0 || !leads;
    for (int i = 0; blobs && i < n; i++) {
        if (blobs[i] && sizes[i] == sizeof(int))
            memcpy(&(*nthreads)[i], blobs[i], sizeof(int));
        else
            ok = 0;
        free(blobs[i]);
    }
    free(blobs), free(sizes);
    memset(g, 0, sizeof *g);
    ok = ok && p->unit_metric && p->unit_row &&
         (!leads || group_rows_init(g, *nthreads, n, j->simulate, p->zlib) == 0);
    int all_ok = 0;
    quiet_allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, j->comm);
    return all_ok ? 0 : -1;
}

int collect_values(const collect_job *j)
{
    collector c = {
        .job = j,
        .cols = j->columns ? j->columns->cols : NULL,
        .ncols = j->columns ? j->columns->ncols : 0,
    };
    /* Allocation failures must not break the collective pattern: every
     * step agrees before the next. */
    int ok = j->columns && !j->columns->failed && c.ncols == metrics_count() &&
             collect_columns_sort(j->columns, j->ids, j->nlocal, j->nglobal) == 0;
    file_rows f;
    agg_tree t;
    agg_tree_build(j->comm, agg_tree_cap(j->simulate), &t);
    int *nthreads = NULL;
    group_rows g = { 0 };
    int planned = plan_build(&c, ok) == 0;
    file_rows_init(&f, j->rank == 0 ? j->w : NULL, c.plan.nmetrics, c.plan.nglobal, c.plan.present,
                   c.plan.bytes, c.plan.npresent);
    int grouped = planned && group_setup(j, &t, &c.plan, &g, &nthreads) == 0;
    if (grouped) {
        exchange_chunks(&c, &t, &g, &f);
        file_rows_finish(&f);
    }
    if (t.group_rank == 0)
        group_rows_free(&g);
    free(nthreads);
    plan_free(&c.plan);
    return grouped && (j->rank != 0 || f.w) ? 0 : -1;
}
