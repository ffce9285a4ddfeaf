#include "report/merge/location_reduce.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/config.h"
#include "report/merge/group_rows.h"
#include "report/merge/quiet.h"
#include "report/profile/metrics.h"

#define LOC_CHUNK_UNITS (1 << 15) /* rows of a chunk: 2 MiB of reduction a rank */
#define NKEYS 3

/* A row's reduction as it travels: sum, min, max, the ranks of min and
 * max (doubles: exact to 2^53), the key ranks' values. */
enum {
    E_SUM,
    E_MIN,
    E_MAX,
    E_ARGMIN,
    E_ARGMAX,
    E_KEY,
    E_LEN = E_KEY + NKEYS
};
#define NO_RANK 1e300 /* loses every tie: no rank holds a value */

int location_reduce_wanted(long long nranks)
{
    if (hprof_config.locations == HPROF_LOCATIONS_AUTO)
        return nranks > LOCATIONS_AUTO_RANKS;
    return hprof_config.locations == HPROF_LOCATIONS_REDUCED;
}

/* ---- the key ranks ---------------------------------------------------------- */

static int metric_named(const char *uniq)
{
    for (int m = 0; m < metrics_count(); m++)
        if (strcmp(metrics_defs()[m].uniq_name, uniq) == 0)
            return m;
    return -1;
}

static double rank_time(const value_columns *vc)
{
    size_t n;
    const value_cell *c = collect_column(vc, metric_named("time"), &n);
    double t = 0;
    for (size_t i = 0; i < n; i++)
        t += c[i].value;
    return t;
}

/* The key ranks (ranks of the merge's communicator x K) as the full file
 * numbers its processes: r*K+j simulated, else their process ranks
 * (MPI_COMM_WORLD's: under an MPMD launch where part of it measures the
 * communicator's ranks are not). */
static void key_labels(MPI_Comm comm, int rank, long long k, reduced_file *rf)
{
    long long mine[NKEYS], all[NKEYS];
    for (int q = 0; q < NKEYS; q++)
        mine[q] = rf->key[q] / k == rank ? rf->first + rf->key[q] % k : -1;
    quiet_allreduce(mine, all, NKEYS, MPI_LONG_LONG, MPI_MAX, comm);
    memcpy(rf->label, all, sizeof all);
}

void location_reduce_plan(MPI_Comm comm, int simulate, int process_rank, const value_columns *vc,
                          reduced_file *rf)
{
    int rank, size;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    long long k = simulate > 1 ? simulate : 1;
    struct {
        double t;
        int rank;
    } mine = { rank_time(vc), rank }, least, most;
    quiet_allreduce(&mine, &least, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm);
    quiet_allreduce(&mine, &most, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
    memset(rf, 0, sizeof *rf);
    rf->nranks = (long long)size * k;
    /* simulated times grow with j: the least at j = 0, the most at K-1 */
    rf->key[0] = 0;
    rf->key[1] = least.rank * k;
    rf->key[2] = most.rank * k + (most.t > 0 ? k - 1 : 0);
    rf->first = k > 1 ? rank * k : process_rank;
    key_labels(comm, rank, k, rf);
    snprintf(rf->names[LOC_SUM], sizeof rf->names[0], "sum of %lld ranks", rf->nranks);
    snprintf(rf->names[LOC_MIN], sizeof rf->names[0], "min");
    snprintf(rf->names[LOC_MAX], sizeof rf->names[0], "max");
    snprintf(rf->names[LOC_RANK0], sizeof rf->names[0], "rank %lld", rf->label[0]);
    snprintf(rf->names[LOC_LEAST], sizeof rf->names[0], "rank %lld: least time", rf->label[1]);
    snprintf(rf->names[LOC_MOST], sizeof rf->names[0], "rank %lld: most time", rf->label[2]);
    for (int l = 0; l < LOC_COUNT; l++)
        rf->procs[l] = (cube_process_def){ l, 0, 1, NULL, rf->names[l] };
}

/* ---- a rank's part of a chunk -------------------------------------------------- */

enum value_kind {
    KIND_SUM,
    KIND_MIN,
    KIND_MAX
};

typedef struct metric_info {
    enum value_kind kind;
    int floating; /* simulated values scale (group_rows.h) */
} metric_info;

static metric_info info_of(int m)
{
    const char *dtype = metrics_defs()[m].dtype;
    metric_info i = { KIND_SUM, !cube_dtype_is_integer(cube_dtype_code(dtype)) };
    if (strcmp(dtype, "MINDOUBLE") == 0)
        i.kind = KIND_MIN;
    else if (strcmp(dtype, "MAXDOUBLE") == 0)
        i.kind = KIND_MAX;
    return i;
}

/* A rank's threads as one value: summed, or their min or max (a min or
 * max kind's 0 is a thread that never got there). */
static void take_thread(double *v, int *has, enum value_kind kind, double x)
{
    if (kind == KIND_SUM || !*has)
        *v = kind == KIND_SUM ? *v + x : x;
    else
        *v = kind == KIND_MIN ? fmin(*v, x) : fmax(*v, x);
    *has = 1;
}

/* Rank r's value v (has: some thread has one) as the reduction of its K
 * simulated ranks r*K+j, each v x (1 + j/(4K)) if floating; where min and
 * max are, as ranks of the file from first (reduced_file). */
static void fill_element(double *e, double v, int has, metric_info mi, long long r, long long k,
                         long long first, const long long *key)
{
    double top = mi.floating ? v * (1 + (k - 1) / (4.0 * k)) : v;
    long long lo = first, hi = first + (mi.floating && v != 0 ? k - 1 : 0);
    e[E_SUM] = mi.floating ? v * (k + (k - 1) / 8.0) : v * k;
    if (v <= top)
        e[E_MIN] = v, e[E_ARGMIN] = (double)lo, e[E_MAX] = top, e[E_ARGMAX] = (double)hi;
    else
        e[E_MIN] = top, e[E_ARGMIN] = (double)hi, e[E_MAX] = v, e[E_ARGMAX] = (double)lo;
    if (mi.kind != KIND_SUM && !has)
        e[E_MIN] = INFINITY, e[E_MAX] = -INFINITY, e[E_ARGMIN] = e[E_ARGMAX] = NO_RANK;
    for (int q = 0; q < NKEYS; q++) {
        long long j = key[q] - r * k;
        e[E_KEY + q] = j >= 0 && j < k ? (mi.floating ? v * (1 + j / (4.0 * k)) : v) : 0;
    }
}

typedef struct chunker {
    const value_columns *vc;
    size_t *next; /* per metric: its first cell not taken */
    int nmetrics, nglobal;
    long long rank, k, first;
    const long long *key;
} chunker;

/* Units u0 .. u0+n-1 (unit = metric x nglobal + row) into e. */
static void fill_chunk(chunker *c, long long u0, int n, double *e)
{
    for (int i = 0; i < n;) {
        int m = (int)((u0 + i) / c->nglobal), row0 = (int)((u0 + i) % c->nglobal);
        int rows = c->nglobal - row0 < n - i ? c->nglobal - row0 : n - i;
        metric_info mi = info_of(m);
        size_t ncells;
        const value_cell *cells = collect_column(c->vc, m, &ncells);
        for (int r = 0; r < rows; r++) {
            double v = 0;
            int has = 0;
            for (; c->next[m] < ncells && cells[c->next[m]].row <= row0 + r; c->next[m]++)
                if (cells[c->next[m]].row == row0 + r)
                    take_thread(&v, &has, mi.kind, cells[c->next[m]].value);
            fill_element(e + (size_t)(i + r) * E_LEN, v, has, mi, c->rank, c->k, c->first, c->key);
        }
        i += rows;
    }
}

/* The user-defined operation: commutative, ties go to the lower rank. */
static void reduce_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const double *a = in;
    double *b = inout;
    for (int i = 0; i < *len; i++, a += E_LEN, b += E_LEN) {
        b[E_SUM] += a[E_SUM];
        if (a[E_MIN] < b[E_MIN] || (a[E_MIN] == b[E_MIN] && a[E_ARGMIN] < b[E_ARGMIN]))
            b[E_MIN] = a[E_MIN], b[E_ARGMIN] = a[E_ARGMIN];
        if (a[E_MAX] > b[E_MAX] || (a[E_MAX] == b[E_MAX] && a[E_ARGMAX] < b[E_ARGMAX]))
            b[E_MAX] = a[E_MAX], b[E_ARGMAX] = a[E_ARGMAX];
        for (int q = 0; q < NKEYS; q++)
            b[E_KEY + q] += a[E_KEY + q];
    }
}

/* ---- rank 0: the rows and the member --------------------------------------------- */

typedef struct reduced_out {
    cube_writer *w; /* NULL after a failure */
    int metric;     /* begun, -1 before the first */
    double *rows;   /* a chunk's rows of LOC_COUNT values */
    z_stream z;
    unsigned char *member;
    size_t len, cap;
    int zok;
} reduced_out;

static void deflate_into(reduced_out *o, const void *data, size_t n, int flush)
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

static int out_open(reduced_out *o, cube_writer *w, int nglobal, long long nranks)
{
    memset(o, 0, sizeof *o);
    o->w = w;
    o->metric = -1;
    o->rows = malloc((size_t)LOC_CHUNK_UNITS * LOC_COUNT * sizeof(double));
    o->zok = deflateInit(&o->z, 6) == Z_OK;
    unsigned char head[28];
    uint32_t v[3] = { 1, (uint32_t)metrics_count(), (uint32_t)nglobal };
    uint64_t ranks = (uint64_t)nranks;
    memcpy(head, LOCATIONS_MAGIC, 8);
    memcpy(head + 8, v, sizeof v);
    memcpy(head + 20, &ranks, sizeof ranks);
    if (o->zok)
        deflate_into(o, head, sizeof head, Z_NO_FLUSH);
    return o->rows && o->zok ? 0 : -1;
}

/* A reduced value as stored: a min or max no rank holds is 0 (unvisited). */
static double stored(double v)
{
    return isinf(v) ? 0 : v;
}

static void out_metric(reduced_out *o, int m)
{
    while (o->w && o->metric < m) {
        if (o->metric >= 0 && cube_writer_metric_end(o->w) != 0)
            o->w = NULL;
        o->metric++;
        if (o->w && cube_writer_metric_begin(o->w, o->metric) != 0)
            o->w = NULL;
    }
}

/* Rank 0: a chunk's reduced units, as rows of the file and the member's ranks. */
static void out_chunk(reduced_out *o, long long u0, int n, int nglobal, const double *e)
{
    int32_t at[2 * 1024];
    for (int i = 0; i < n; i++) {
        const double *x = e + (size_t)i * E_LEN;
        metric_info mi = info_of((int)((u0 + i) / nglobal));
        double *row = o->rows + (size_t)i * LOC_COUNT;
        row[LOC_MIN] = stored(x[E_MIN]);
        row[LOC_MAX] = stored(x[E_MAX]);
        row[LOC_SUM] = mi.kind == KIND_MIN ? row[LOC_MIN] : mi.kind == KIND_MAX ? row[LOC_MAX] : x[E_SUM];
        for (int q = 0; q < NKEYS; q++)
            row[LOC_RANK0 + q] = x[E_KEY + q];
        at[2 * (i % 1024)] = x[E_ARGMIN] < NO_RANK ? (int32_t)x[E_ARGMIN] : -1;
        at[2 * (i % 1024) + 1] = x[E_ARGMAX] < NO_RANK ? (int32_t)x[E_ARGMAX] : -1;
        if (i % 1024 == 1023 || i == n - 1)
            deflate_into(o, at, (size_t)(i % 1024 + 1) * 2 * sizeof(int32_t), Z_NO_FLUSH);
    }
    for (int i = 0; i < n;) {
        int m = (int)((u0 + i) / nglobal), row0 = (int)((u0 + i) % nglobal);
        int rows = nglobal - row0 < n - i ? nglobal - row0 : n - i;
        out_metric(o, m);
        if (o->w && cube_writer_metric_rows(o->w, row0, rows, o->rows + (size_t)i * LOC_COUNT) != 0)
            o->w = NULL;
        i += rows;
    }
}

static int out_close(reduced_out *o)
{
    out_metric(o, metrics_count() - 1);
    if (o->w && o->metric >= 0 && cube_writer_metric_end(o->w) != 0)
        o->w = NULL;
    deflate_into(o, NULL, 0, Z_FINISH);
    if (o->w && (!o->zok || cube_writer_add_member(o->w, LOCATIONS_MEMBER, o->member, o->len) != 0))
        o->w = NULL;
    deflateEnd(&o->z);
    free(o->member);
    free(o->rows);
    return o->w ? 0 : -1;
}

/* ---- the whole reduction ---------------------------------------------------------- */

static void run_chunks(MPI_Comm comm, chunker *c, double *mine, double *sum, MPI_Datatype type, MPI_Op op,
                       reduced_out *o)
{
    long long units = (long long)c->nmetrics * c->nglobal;
    for (long long u0 = 0; u0 < units; u0 += LOC_CHUNK_UNITS) {
        int n = units - u0 < LOC_CHUNK_UNITS ? (int)(units - u0) : LOC_CHUNK_UNITS;
        fill_chunk(c, u0, n, mine);
        quiet_reduce(mine, sum, n, type, op, 0, comm);
        if (o)
            out_chunk(o, u0, n, c->nglobal, sum);
    }
}

int location_reduce_write(MPI_Comm comm, int simulate, cube_writer *w, const value_columns *vc, int nglobal,
                          const reduced_file *rf)
{
    int rank;
    PMPI_Comm_rank(comm, &rank);
    chunker c = { vc,
                  calloc((size_t)metrics_count() + 1, sizeof(size_t)),
                  metrics_count(),
                  nglobal,
                  rank,
                  simulate > 1 ? simulate : 1,
                  rf->first,
                  rf->key };
    size_t bytes = (size_t)LOC_CHUNK_UNITS * E_LEN * sizeof(double);
    double *mine = malloc(bytes), *sum = rank == 0 ? malloc(bytes) : NULL;
    reduced_out o;
    int ok = c.next && mine && (rank != 0 || (sum && out_open(&o, w, nglobal, rf->nranks) == 0)), all_ok = 0;
    quiet_allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    int rc = -1;
    if (all_ok) {
        MPI_Datatype type;
        MPI_Op op;
        PMPI_Type_contiguous(E_LEN, MPI_DOUBLE, &type);
        PMPI_Type_commit(&type);
        PMPI_Op_create(reduce_op, 1, &op);
        run_chunks(comm, &c, mine, sum, type, op, rank == 0 ? &o : NULL);
        PMPI_Op_free(&op);
        PMPI_Type_free(&type);
        rc = rank == 0 ? out_close(&o) : 0;
    } else if (rank == 0 && ok) {
        o.w = NULL; /* nothing written: the file is abandoned */
        out_close(&o);
    }
    free(c.next), free(mine), free(sum);
    return rc;
}
