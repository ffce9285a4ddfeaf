#include "report/merge/group_rows.h"

#include <stdlib.h>
#include <string.h>

#include "report/cube/writer/cube_writer.h"
#include "report/profile/metrics.h"

int group_rows_init(group_rows *g, const int *nthreads, int nmembers, int simulate, int zlib)
{
    memset(g, 0, sizeof *g);
    g->nmembers = nmembers;
    g->nthreads = nthreads;
    g->simulate = simulate < 1 ? 1 : simulate;
    g->zlib = zlib;
    g->base = malloc(((size_t)nmembers + 1) * sizeof *g->base);
    if (!g->base)
        return -1;
    for (int i = 0; i < nmembers; i++) {
        g->base[i] = g->nlocs;
        g->nlocs += (long long)nthreads[i] * g->simulate;
    }
    size_t n = (size_t)g->nlocs;
    g->dense = calloc(n + 1, sizeof(double));
    g->encoded = malloc(n * 8 + 1);
    if (!g->dense || !g->encoded)
        return -1;
    if (zlib) {
        if (cw_piece_init(&g->d, n * 8) != 0)
            return -1;
        memset(g->encoded, 0, n * 8);
        size_t len = cw_piece_deflate(&g->d, g->encoded);
        if (!len || !(g->zero = malloc(len)))
            return -1;
        memcpy(g->zero, g->d.buf, len);
        g->zero_len = len;
    }
    memset(g->encoded, 0, n * 8);
    g->zero_adler = cw_piece_adler(g->encoded, n * 8);
    return 0;
}

void group_rows_free(group_rows *g)
{
    free(g->base), free(g->dense), free(g->encoded), free(g->zero);
    if (g->zlib)
        cw_piece_free(&g->d);
    memset(g, 0, sizeof *g);
}

/* Member i's cells of metric m, from its packet: where they start, how
 * many (0 for a packet too short for what it says). */
static const value_cell *member_cells(void *packet, size_t size, int ncols, int m, size_t *n)
{
    size_t head = sizeof(uint64_t) * (size_t)ncols, before = 0;
    const uint64_t *counts = packet;
    *n = 0;
    if (!packet || size < head)
        return NULL;
    size_t have = (size - head) / sizeof(value_cell);
    for (int k = 0; k < m; k++)
        before += counts[k];
    if (before > have || counts[m] > have - before)
        return NULL;
    *n = counts[m];
    return (const value_cell *)((char *)packet + head) + before;
}

/* Member i's cells of the unit's row into the dense range, K times over. */
static void fill_member(group_rows *g, int i, const value_cell *cells, size_t n, size_t *next, int row,
                        int floating)
{
    int nt = g->nthreads[i], k = g->simulate;
    while (*next < n && cells[*next].row < row)
        ++*next;
    for (; *next < n && cells[*next].row == row; ++*next) {
        const value_cell *e = &cells[*next];
        if (e->thread < 0 || e->thread >= nt)
            continue;
        double *to = g->dense + g->base[i] + e->thread;
        to[0] = e->value;
        for (int j = 1; j < k; j++)
            to[(size_t)j * (size_t)nt] = floating ? e->value * (1 + j / (4.0 * k)) : e->value;
    }
}

static int add_piece(group_rows *g, int dtype, piece_msg *out)
{
    size_t n = (size_t)g->nlocs;
    int nonzero = cube_encode_values(g->encoded, g->dense, (int)n, dtype);
    if (!nonzero)
        return piece_msg_add(out, g->zlib ? g->zero : g->encoded, g->zlib ? g->zero_len : n * 8,
                             g->zero_adler, 0);
    uint32_t adler = cw_piece_adler(g->encoded, n * 8);
    if (!g->zlib)
        return piece_msg_add(out, g->encoded, n * 8, adler, 1);
    size_t len = cw_piece_deflate(&g->d, g->encoded);
    return len ? piece_msg_add(out, g->d.buf, len, adler, 1) : -1;
}

int group_rows_make(group_rows *g, void *const *packets, const size_t *sizes, int ncols, const chunk_units *u,
                    piece_msg *out)
{
    int ok = 1;
    for (int i = 0; i < g->nmembers; i++)
        ok &= packets && sizes && packets[i] != NULL;
    if (piece_msg_begin(out, u->n, (uint64_t)g->nlocs * 8, !ok) != 0)
        return -1;
    size_t *next = calloc((size_t)g->nmembers + 1, sizeof *next);
    const value_cell **cells = calloc((size_t)g->nmembers + 1, sizeof *cells);
    size_t *ncells = calloc((size_t)g->nmembers + 1, sizeof *ncells);
    int rc = next && cells && ncells ? 0 : -1;
    const cube_metric_def *defs = metrics_defs();
    for (int k = 0, m = -1, dtype = 0; rc == 0 && k < u->n; k++) {
        if (u->metric[k] != m) {
            m = u->metric[k];
            if (m < 0 || m >= ncols)
                rc = -1;
            else
                dtype = cube_dtype_code(defs[m].dtype);
            for (int i = 0; rc == 0 && i < g->nmembers; i++) {
                cells[i] = member_cells(packets[i], sizes[i], ncols, m, &ncells[i]);
                next[i] = 0;
            }
        }
        if (rc != 0)
            break;
        memset(g->dense, 0, (size_t)g->nlocs * sizeof(double));
        for (int i = 0; i < g->nmembers; i++)
            fill_member(g, i, cells[i], ncells[i], &next[i], u->row[k], !cube_dtype_is_integer(dtype));
        rc = add_piece(g, dtype, out);
    }
    free(next), free(cells), free(ncells);
    if (rc != 0) {
        piece_msg_free(out);
        piece_msg_begin(out, 0, 0, 1);
    }
    return rc;
}
