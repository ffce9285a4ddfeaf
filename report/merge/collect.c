/*
 * collect.c - values from the ranks to rank 0, sparse on the wire.
 *
 * Right after a rank's profile is built, its values become one column per
 * metric: the cells (cnode, thread, value) whose bits are not all zero, in
 * one pass over its [cnode][thread][metric] array, which is then freed (a
 * million call paths x 16 metrics are 128 MB of mostly zeros). Once the
 * file's ids are known, each column is sorted into file id order; per
 * metric and chunk of rows [c0, c0+n), a rank's cells are then a
 * contiguous run of its column and go as they are. Rank 0 scatters them
 * into a chunk of rows x locations and hands the rows to the writer.
 * Zeros are what the writer would have got for the cells not sent: the
 * file is the same as with dense rows.
 */
#include "report/merge/collect.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/profile/metrics.h"
#include "report/merge/quiet.h"

#define CHUNK_VALUES (1 << 20) /* values of one chunk: 8 MiB of rows on rank 0 */

typedef struct cell {
    int32_t row;    /* this rank's cnode id, then the file's (sort_column) */
    int32_t thread; /* of the sending rank */
    double value;
} cell;

typedef struct column {
    cell *cells;
    size_t n, cap, next; /* next: the first cell not sent yet */
} column;

struct value_columns {
    column *cols; /* per metric */
    int ncols;
    int failed; /* a value could not be kept */
};

typedef struct collector {
    const collect_job *job;
    cube_writer *w; /* NULL after a write error */
    column *cols;   /* job->columns' */
    int ncols;
    cell *recv;
    int *counts, *displs;
    cell **from; /* rank 0: each rank's cells of a chunk */
    int *ncells;
    double *rows;
    int chunk;
    unsigned char *present, *mine; /* rows with a value: all ranks' (rank 0), this rank's */
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
static int sort_column(column *col, const collect_job *j, int *count)
{
    size_t kept = 0;
    for (size_t k = 0; k < col->n; k++) {
        cell *e = &col->cells[k];
        e->row = e->row < j->nlocal && j->ids && j->ids[e->row] < j->nglobal ? j->ids[e->row] : -1;
        if (e->row >= 0) {
            count[e->row + 1]++;
            kept++;
        }
    }
    cell *sorted = malloc((kept + 1) * sizeof *sorted);
    for (int g = 0; g < j->nglobal; g++)
        count[g + 1] += count[g];
    for (size_t k = 0; sorted && k < col->n; k++)
        if (col->cells[k].row >= 0)
            sorted[count[col->cells[k].row]++] = col->cells[k];
    memset(count, 0, ((size_t)j->nglobal + 1) * sizeof *count);
    free(col->cells);
    col->cells = sorted;
    col->n = col->cap = sorted ? kept : 0;
    return sorted ? 0 : -1;
}

static int sort_columns(collector *c)
{
    const collect_job *j = c->job;
    int *count = calloc((size_t)j->nglobal + 1, sizeof *count), rc = count ? 0 : -1;
    for (int m = 0; rc == 0 && m < c->ncols; m++)
        if (c->cols[m].n)
            rc = sort_column(&c->cols[m], j, count);
    free(count);
    return rc;
}

/* Rank 0: cells of each rank (from[r], ncells[r] of them) into n rows of
 * all locations (set 0: back to zeros, as the rows are kept between
 * chunks). */
static void unpack(collector *c, int c0, int n, const cell *const *from, const int *ncells, int set)
{
    const collect_job *j = c->job;
    size_t nloc = (size_t)j->nlocations;
    for (int r = 0, base = 0; r < j->nprocs; base += j->nthreads[r], r++)
        for (int k = 0; k < ncells[r]; k++) {
            const cell *e = &from[r][k];
            if (e->row >= c0 && e->row - c0 < n && e->thread >= 0 && e->thread < j->nthreads[r])
                c->rows[(size_t)(e->row - c0) * nloc + (size_t)base + (size_t)e->thread] = set ? e->value : 0;
        }
}

/* The rows c0.. of metric m (none: zeros) to the writer. */
static void write_rows(collector *c, int c0, int n, const cell *const *from, const int *ncells, int any)
{
    if (!c->w)
        return;
    /* File ids are preorder positions, the row order of EXCLUSIVE metrics:
     * the chunk is rows c0.. as they are (hprof has no INCLUSIVE metric).
     * A chunk no rank has a value in (most chunks of most metrics in a
     * large profile) is rows of zeros, which the writer makes cheaply. */
    if (any)
        unpack(c, c0, n, from, ncells, 1);
    if (cube_writer_metric_rows(c->w, c0, n, any ? c->rows : NULL) != 0)
        c->w = NULL;
    if (any)
        unpack(c, c0, n, from, ncells, 0);
}

static void exchange_chunk(collector *c, int m, int c0, int n)
{
    const collect_job *j = c->job;
    column *col = m < c->ncols ? &c->cols[m] : NULL;
    size_t first = col ? col->next : 0, last = first;
    while (col && last < col->n && col->cells[last].row < c0 + n)
        last++;
    if (col)
        col->next = last;
    int bytes = (int)((last - first) * sizeof(cell));
    /* quiet: the others rest while rank 0 writes the last chunk */
    quiet_gather(&bytes, 1, MPI_INT, c->counts, 1, MPI_INT, 0, j->comm);
    int total = 0;
    if (j->rank == 0)
        for (int r = 0; r < j->nprocs; r++) {
            c->displs[r] = total * (int)sizeof(cell);
            total += c->counts[r] / (int)sizeof(cell);
        }
    quiet_gatherv(col ? col->cells + first : NULL, bytes, MPI_BYTE, c->recv, c->counts, c->displs, MPI_BYTE,
                  0, j->comm);
    if (j->rank != 0 || !c->w)
        return;
    for (int r = 0; r < j->nprocs; r++) {
        c->from[r] = c->recv + c->displs[r] / (int)sizeof(cell);
        c->ncells[r] = c->counts[r] / (int)sizeof(cell);
    }
    write_rows(c, c0, n, (const cell *const *)c->from, c->ncells, total > 0);
}

/* Rank 0's buffers for a chunk: every value of it is the most that can come. */
static int alloc_buffers(collector *c)
{
    const collect_job *j = c->job;
    size_t rows = (size_t)c->chunk, nloc = (size_t)j->nlocations;
    size_t bitmap = ((size_t)j->nglobal + 7) / 8 + 1;
    c->mine = malloc(bitmap);
    c->present = j->rank == 0 ? malloc(bitmap) : NULL;
    if (!c->mine || (j->rank == 0 && !c->present))
        return -1;
    if (j->rank != 0)
        return 0;
    c->counts = malloc((size_t)j->nprocs * sizeof(int));
    c->displs = malloc((size_t)j->nprocs * sizeof(int));
    c->from = malloc((size_t)j->nprocs * sizeof *c->from);
    c->ncells = malloc((size_t)j->nprocs * sizeof *c->ncells);
    c->recv = malloc(rows * nloc * sizeof(cell) + 1);
    c->rows = calloc(rows * nloc + 1, sizeof(double)); /* zeros between chunks (unpack) */
    return c->counts && c->displs && c->from && c->ncells && c->recv && c->rows ? 0 : -1;
}

static void free_buffers(collector *c)
{
    free(c->recv), free(c->counts), free(c->displs), free(c->from), free(c->ncells), free(c->rows);
    free(c->present), free(c->mine);
}

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

/* The rows of metric m that hold a value on some rank, into rank 0's
 * bitmap (collective); the count of them on rank 0, else 0. */
static int rows_present(collector *c, int m)
{
    const collect_job *j = c->job;
    size_t bytes = ((size_t)j->nglobal + 7) / 8;
    memset(c->mine, 0, bytes + 1);
    const column *col = m < c->ncols ? &c->cols[m] : NULL;
    for (size_t k = 0; col && k < col->n; k++)
        mark_row(c->mine, col->cells[k].row);
    quiet_reduce(c->mine, c->present, (int)bytes, MPI_UNSIGNED_CHAR, MPI_BOR, 0, j->comm);
    return j->rank == 0 ? bitmap_count(c->present, bytes) : 0;
}

/* Rank 0, a small profile: the rows of a metric with a value, from the
 * cells every rank sent (metric_cells). */
static int rows_present_in_cells(collector *c)
{
    const collect_job *j = c->job;
    size_t bytes = ((size_t)j->nglobal + 7) / 8;
    memset(c->present, 0, bytes + 1);
    for (int r = 0; r < j->nprocs; r++)
        for (int k = 0; c->from[r] && k < c->ncells[r]; k++)
            if (c->from[r][k].row >= 0 && c->from[r][k].row < j->nglobal)
                mark_row(c->present, c->from[r][k].row);
    return bitmap_count(c->present, bytes);
}

/* ---- a small profile: every metric at once ------------------------------------ */

/* Where the values of the whole profile fit in one chunk (most profiles),
 * each rank sends all of its cells in one message: its cells per metric,
 * then the cells, metric after metric. One message a rank instead of two
 * collectives a metric: each collective waits for the slowest rank to be
 * scheduled, 0.2 s at 64 ranks on 2 cores under MPICH. */
#define TAG_VALUES 4722 /* and 4723: quiet_gather_blobs */

typedef struct packet {
    uint64_t *w; /* ncols counts, then the cells */
    size_t bytes;
} packet;

static packet pack_columns(const collector *c)
{
    size_t head = sizeof(uint64_t) * (size_t)c->ncols, cells = 0;
    for (int m = 0; m < c->ncols; m++)
        cells += c->cols[m].n;
    packet p = { malloc(head + cells * sizeof(cell) + 1), head + cells * sizeof(cell) };
    if (!p.w) {
        p.bytes = 0; /* rank 0 takes it for no values */
        return p;
    }
    char *x = (char *)p.w + head;
    for (int m = 0; m < c->ncols; m++) {
        p.w[m] = c->cols[m].n;
        if (c->cols[m].n)
            memcpy(x, c->cols[m].cells, c->cols[m].n * sizeof(cell));
        x += c->cols[m].n * sizeof(cell);
    }
    return p;
}

/* Rank 0: metric m's cells of each rank's packet (a packet too short for
 * what it says: none). */
static int metric_cells(collector *c, const packet *packets, int m)
{
    int any = 0;
    size_t head = sizeof(uint64_t) * (size_t)c->ncols;
    for (int r = 0; r < c->job->nprocs; r++) {
        const packet *p = &packets[r];
        int whole = p->w && p->bytes >= head;
        size_t before = 0, mine = whole ? p->w[m] : 0, have = whole ? (p->bytes - head) / sizeof(cell) : 0;
        for (int k = 0; whole && k < m; k++)
            before += p->w[k];
        int fits = whole && before <= have && mine <= have - before && mine <= INT32_MAX;
        c->from[r] = fits ? (cell *)((char *)p->w + head) + before : NULL;
        c->ncells[r] = fits ? (int)mine : 0;
        any |= c->ncells[r] > 0;
    }
    return any;
}

static void collect_at_once(collector *c)
{
    const collect_job *j = c->job;
    packet mine = pack_columns(c);
    void **blobs = j->rank == 0 ? calloc((size_t)j->nprocs, sizeof *blobs) : NULL;
    size_t *bytes = j->rank == 0 ? calloc((size_t)j->nprocs, sizeof *bytes) : NULL;
    packet *packets = j->rank == 0 ? calloc((size_t)j->nprocs, sizeof *packets) : NULL;
    if (j->rank == 0 && !(blobs && bytes && packets)) { /* the others' are taken all the same */
        free(blobs), free(bytes), free(packets);
        blobs = NULL, bytes = NULL, packets = NULL;
        c->w = NULL;
    }
    if (quiet_gather_blobs(mine.w, mine.bytes, blobs, bytes, 0, TAG_VALUES, j->comm) != 0 && j->rank == 0)
        c->w = NULL;
    free(mine.w);
    if (j->rank != 0)
        return;
    for (int r = 0; packets && r < j->nprocs; r++)
        packets[r] = (packet){ blobs[r], blobs[r] ? bytes[r] : 0 };
    free(blobs), free(bytes);
    for (int m = 0; c->w && m < metrics_count(); m++) {
        int any = metric_cells(c, packets, m);
        if (metrics_defs()[m].inclusive ||
            cube_writer_metric_begin_sparse(c->w, m, c->present, rows_present_in_cells(c)) != 0) {
            c->w = NULL; /* rows of an INCLUSIVE metric would not be in file id order */
            break;
        }
        write_rows(c, 0, j->nglobal, (const cell *const *)c->from, c->ncells, any);
        if (c->w && cube_writer_metric_end(c->w) != 0)
            c->w = NULL;
    }
    for (int r = 0; packets && r < j->nprocs; r++)
        free(packets[r].w);
    free(packets);
}

int collect_values(const collect_job *j)
{
    collector c = {
        .job = j,
        .w = j->w,
        .cols = j->columns ? j->columns->cols : NULL,
        .ncols = j->columns ? j->columns->ncols : 0,
    };
    /* rank 0: rows of a chunk, and whether the whole profile is one */
    int plan[2] = { 0, 0 };
    if (j->rank == 0) {
        int nloc = j->nlocations > 0 ? j->nlocations : 1;
        plan[0] = CHUNK_VALUES / nloc;
        plan[1] = (double)j->nglobal * nloc * metrics_count() <= CHUNK_VALUES;
    }
    quiet_bcast(plan, 2, MPI_INT, 0, j->comm);
    c.chunk = plan[0] < 1 ? 1 : plan[0];
    if (c.chunk > j->nglobal && j->nglobal > 0)
        c.chunk = j->nglobal;
    int ok = j->columns && !j->columns->failed && c.ncols == metrics_count() && sort_columns(&c) == 0 &&
             alloc_buffers(&c) == 0,
        all_ok = 0;
    /* Allocation failures must not break the collective pattern: agree first. */
    quiet_allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, j->comm);
    if (all_ok && plan[1])
        collect_at_once(&c);
    for (int m = 0; all_ok && !plan[1] && m < metrics_count(); m++) {
        int npresent = rows_present(&c, m);
        if (c.w && (metrics_defs()[m].inclusive ||
                    cube_writer_metric_begin_sparse(c.w, m, c.present, npresent) != 0))
            c.w = NULL; /* rows of an INCLUSIVE metric would not be in file id order */
        for (int c0 = 0; c0 < j->nglobal; c0 += c.chunk)
            exchange_chunk(&c, m, c0, j->nglobal - c0 < c.chunk ? j->nglobal - c0 : c.chunk);
        if (c.w && cube_writer_metric_end(c.w) != 0)
            c.w = NULL;
    }
    free_buffers(&c);
    return all_ok && (j->rank != 0 || c.w) ? 0 : -1;
}
