#include "report/profile/locations_file.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"

int locations_wanted(int setting, long long nranks)
{
    if (setting == HPROF_LOCATIONS_AUTO)
        return nranks > LOCATIONS_AUTO_RANKS;
    return setting == HPROF_LOCATIONS_REDUCED;
}

void locations_processes(long long nranks, const long long label[LOCATIONS_NKEYS], char names[LOC_COUNT][64],
                         cube_process_def procs[LOC_COUNT])
{
    snprintf(names[LOC_SUM], 64, "sum of %lld ranks", nranks);
    snprintf(names[LOC_MIN], 64, "min");
    snprintf(names[LOC_MAX], 64, "max");
    snprintf(names[LOC_RANK0], 64, "rank %lld", label[0]);
    snprintf(names[LOC_LEAST], 64, "rank %lld: least time", label[1]);
    snprintf(names[LOC_MOST], 64, "rank %lld: most time", label[2]);
    for (int l = 0; l < LOC_COUNT; l++)
        procs[l] = (cube_process_def){ l, 0, 1, NULL, names[l] };
}

/* ---- the reduction ------------------------------------------------------------ */

locations_metric locations_metric_of(const char *dtype)
{
    locations_metric i = { LOCATIONS_SUMS, !cube_dtype_is_integer(cube_dtype_code(dtype)) };
    if (strcmp(dtype, "MINDOUBLE") == 0)
        i.kind = LOCATIONS_MINS;
    else if (strcmp(dtype, "MAXDOUBLE") == 0)
        i.kind = LOCATIONS_MAXS;
    return i;
}

/* A min or max kind's 0 is a thread that never got there. */
void locations_take_thread(double *v, int *has, enum locations_value_kind kind, double x)
{
    if (kind == LOCATIONS_SUMS || !*has)
        *v = kind == LOCATIONS_SUMS ? *v + x : x;
    else
        *v = kind == LOCATIONS_MINS ? fmin(*v, x) : fmax(*v, x);
    *has = 1;
}

void locations_element(double *e, double v, int has, locations_metric mi, long long r, long long k,
                       long long first, const long long *key)
{
    double top = mi.floating ? v * (1 + (k - 1) / (4.0 * k)) : v;
    long long lo = first, hi = first + (mi.floating && v != 0 ? k - 1 : 0);
    e[FOLD_SUM] = mi.floating ? v * (k + (k - 1) / 8.0) : v * k;
    if (v <= top)
        e[FOLD_MIN] = v, e[FOLD_ARGMIN] = (double)lo, e[FOLD_MAX] = top, e[FOLD_ARGMAX] = (double)hi;
    else
        e[FOLD_MIN] = top, e[FOLD_ARGMIN] = (double)hi, e[FOLD_MAX] = v, e[FOLD_ARGMAX] = (double)lo;
    if (mi.kind != LOCATIONS_SUMS && !has)
        e[FOLD_MIN] = INFINITY, e[FOLD_MAX] = -INFINITY, e[FOLD_ARGMIN] = e[FOLD_ARGMAX] = LOCATIONS_NO_RANK;
    for (int q = 0; q < LOCATIONS_NKEYS; q++) {
        long long j = key[q] - r * k;
        e[FOLD_KEY + q] = j >= 0 && j < k ? (mi.floating ? v * (1 + j / (4.0 * k)) : v) : 0;
    }
}

void locations_fold(double *b, const double *a)
{
    b[FOLD_SUM] += a[FOLD_SUM];
    if (a[FOLD_MIN] < b[FOLD_MIN] || (a[FOLD_MIN] == b[FOLD_MIN] && a[FOLD_ARGMIN] < b[FOLD_ARGMIN]))
        b[FOLD_MIN] = a[FOLD_MIN], b[FOLD_ARGMIN] = a[FOLD_ARGMIN];
    if (a[FOLD_MAX] > b[FOLD_MAX] || (a[FOLD_MAX] == b[FOLD_MAX] && a[FOLD_ARGMAX] < b[FOLD_ARGMAX]))
        b[FOLD_MAX] = a[FOLD_MAX], b[FOLD_ARGMAX] = a[FOLD_ARGMAX];
    for (int q = 0; q < LOCATIONS_NKEYS; q++)
        b[FOLD_KEY + q] += a[FOLD_KEY + q];
}

/* ---- the rows and the member ---------------------------------------------------- */

static void deflate_into(locations_out *o, const void *data, size_t n, int flush)
{
    o->z.next_in = (unsigned char *)data;
    o->z.avail_in = (uInt)n;
    do {
        if (o->cap - o->len < 65536) {
            unsigned char *p = realloc(o->member, o->cap * 2 + 65536);
            if (!p) {
                o->zok = 0;
                return;
            }
            o->member = p;
            o->cap = o->cap * 2 + 65536;
        }
        o->z.next_out = o->member + o->len;
        o->z.avail_out = (uInt)(o->cap - o->len);
        int rc = deflate(&o->z, flush);
        o->len = o->cap - o->z.avail_out;
        if (rc == Z_STREAM_ERROR)
            o->zok = 0;
    } while (o->zok && (o->z.avail_in > 0 || (flush == Z_FINISH && o->z.avail_out == 0)));
}

int locations_out_open(locations_out *o, cube_writer *w, int nmetrics, const char *const *dtypes, int nrows,
                       long long nranks)
{
    memset(o, 0, sizeof *o);
    o->w = w;
    o->metric = -1;
    o->nmetrics = nmetrics, o->nrows = nrows;
    o->metrics = malloc(((size_t)nmetrics + 1) * sizeof *o->metrics);
    for (int m = 0; o->metrics && m < nmetrics; m++)
        o->metrics[m] = locations_metric_of(dtypes[m]);
    o->rows = malloc((size_t)LOCATIONS_CHUNK * LOC_COUNT * sizeof(double));
    o->zok = deflateInit(&o->z, 6) == Z_OK;
    unsigned char head[28];
    uint32_t v[3] = { 1, (uint32_t)nmetrics, (uint32_t)nrows };
    uint64_t ranks = (uint64_t)nranks;
    memcpy(head, LOCATIONS_MAGIC, 8);
    memcpy(head + 8, v, sizeof v);
    memcpy(head + 20, &ranks, sizeof ranks);
    if (o->zok)
        deflate_into(o, head, sizeof head, Z_NO_FLUSH);
    return o->rows && o->metrics && o->zok ? 0 : -1;
}

/* A reduced value as stored: a min or max no rank holds is 0 (unvisited). */
static double stored(double v)
{
    return isinf(v) ? 0 : v;
}

static void out_metric(locations_out *o, int m)
{
    while (o->w && o->metric < m) {
        if (o->metric >= 0 && cube_writer_metric_end(o->w) != 0)
            o->w = NULL;
        o->metric++;
        if (o->w && cube_writer_metric_begin(o->w, o->metric) != 0)
            o->w = NULL;
    }
}

void locations_out_chunk(locations_out *o, long long u0, int n, const double *e)
{
    int32_t at[2 * 1024];
    for (int i = 0; i < n; i++) {
        const double *x = e + (size_t)i * FOLD_LEN;
        locations_metric mi = o->metrics[(int)((u0 + i) / o->nrows)];
        double *row = o->rows + (size_t)i * LOC_COUNT;
        row[LOC_MIN] = stored(x[FOLD_MIN]);
        row[LOC_MAX] = stored(x[FOLD_MAX]);
        row[LOC_SUM] = mi.kind == LOCATIONS_MINS   ? row[LOC_MIN]
                       : mi.kind == LOCATIONS_MAXS ? row[LOC_MAX]
                                                   : x[FOLD_SUM];
        for (int q = 0; q < LOCATIONS_NKEYS; q++)
            row[LOC_RANK0 + q] = x[FOLD_KEY + q];
        at[2 * (i % 1024)] = x[FOLD_ARGMIN] < LOCATIONS_NO_RANK ? (int32_t)x[FOLD_ARGMIN] : -1;
        at[2 * (i % 1024) + 1] = x[FOLD_ARGMAX] < LOCATIONS_NO_RANK ? (int32_t)x[FOLD_ARGMAX] : -1;
        if (i % 1024 == 1023 || i == n - 1)
            deflate_into(o, at, (size_t)(i % 1024 + 1) * 2 * sizeof(int32_t), Z_NO_FLUSH);
    }
    for (int i = 0; i < n;) {
        int m = (int)((u0 + i) / o->nrows), row0 = (int)((u0 + i) % o->nrows);
        int rows = o->nrows - row0 < n - i ? o->nrows - row0 : n - i;
        out_metric(o, m);
        if (o->w && cube_writer_metric_rows(o->w, row0, rows, o->rows + (size_t)i * LOC_COUNT) != 0)
            o->w = NULL;
        i += rows;
    }
}

int locations_out_close(locations_out *o)
{
    out_metric(o, o->nmetrics - 1);
    if (o->w && o->metric >= 0 && cube_writer_metric_end(o->w) != 0)
        o->w = NULL;
    deflate_into(o, NULL, 0, Z_FINISH);
    if (o->w && (!o->zok || cube_writer_add_member(o->w, LOCATIONS_MEMBER, o->member, o->len) != 0))
        o->w = NULL;
    deflateEnd(&o->z);
    free(o->member);
    free(o->rows);
    free(o->metrics);
    return o->w ? 0 : -1;
}
