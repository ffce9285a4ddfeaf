#include "report/merge/location_reduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "report/merge/group_rows.h"
#include "report/merge/quiet.h"
#include "report/profile/metrics.h"

int location_reduce_wanted(long long nranks)
{
    return locations_wanted(hprof_config.locations, nranks);
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
    long long mine[LOCATIONS_NKEYS], all[LOCATIONS_NKEYS];
    for (int q = 0; q < LOCATIONS_NKEYS; q++)
        mine[q] = rf->key[q] / k == rank ? rf->first + rf->key[q] % k : -1;
    quiet_allreduce(mine, all, LOCATIONS_NKEYS, MPI_LONG_LONG, MPI_MAX, comm);
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
    locations_processes(rf->nranks, rf->label, rf->names, rf->procs);
}

/* ---- a rank's part of a chunk -------------------------------------------------- */

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
        locations_metric mi = locations_metric_of(metrics_defs()[m].dtype);
        size_t ncells;
        const value_cell *cells = collect_column(c->vc, m, &ncells);
        for (int r = 0; r < rows; r++) {
            double v = 0;
            int has = 0;
            for (; c->next[m] < ncells && cells[c->next[m]].row <= row0 + r; c->next[m]++)
                if (cells[c->next[m]].row == row0 + r)
                    locations_take_thread(&v, &has, mi.kind, cells[c->next[m]].value);
            locations_element(e + (size_t)(i + r) * FOLD_LEN, v, has, mi, c->rank, c->k, c->first, c->key);
        }
        i += rows;
    }
}

/* The user-defined operation: the serial fold, element by element. */
static void reduce_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const double *a = in;
    double *b = inout;
    for (int i = 0; i < *len; i++, a += FOLD_LEN, b += FOLD_LEN)
        locations_fold(b, a);
}

/* ---- the whole reduction ---------------------------------------------------------- */

static void run_chunks(MPI_Comm comm, chunker *c, double *mine, double *sum, MPI_Datatype type, MPI_Op op,
                       locations_out *o)
{
    long long units = (long long)c->nmetrics * c->nglobal;
    for (long long u0 = 0; u0 < units; u0 += LOCATIONS_CHUNK) {
        int n = units - u0 < LOCATIONS_CHUNK ? (int)(units - u0) : LOCATIONS_CHUNK;
        fill_chunk(c, u0, n, mine);
        quiet_reduce(mine, sum, n, type, op, 0, comm);
        if (o)
            locations_out_chunk(o, u0, n, sum);
    }
}

/* Rank 0: the writer of the rows and the member. */
static int open_out(locations_out *o, cube_writer *w, int nglobal, long long nranks)
{
    memset(o, 0, sizeof *o); /* closed all the same on failure */
    const char **dtypes = malloc(((size_t)metrics_count() + 1) * sizeof *dtypes);
    for (int m = 0; dtypes && m < metrics_count(); m++)
        dtypes[m] = metrics_defs()[m].dtype;
    int rc = dtypes ? locations_out_open(o, w, metrics_count(), dtypes, nglobal, nranks) : -1;
    free(dtypes);
    return rc;
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
    size_t bytes = (size_t)LOCATIONS_CHUNK * FOLD_LEN * sizeof(double);
    double *mine = malloc(bytes), *sum = rank == 0 ? malloc(bytes) : NULL;
    locations_out o;
    int opened = rank == 0 && open_out(&o, w, nglobal, rf->nranks) == 0;
    int ok = c.next && mine && (rank != 0 || (sum && opened)), all_ok = 0;
    quiet_allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    int rc = -1;
    if (all_ok) {
        MPI_Datatype type;
        MPI_Op op;
        PMPI_Type_contiguous(FOLD_LEN, MPI_DOUBLE, &type);
        PMPI_Type_commit(&type);
        PMPI_Op_create(reduce_op, 1, &op);
        run_chunks(comm, &c, mine, sum, type, op, rank == 0 ? &o : NULL);
        PMPI_Op_free(&op);
        PMPI_Type_free(&type);
        rc = rank == 0 ? locations_out_close(&o) : 0;
    } else if (rank == 0) {
        o.w = NULL; /* nothing written: the file is abandoned */
        locations_out_close(&o);
    }
    free(c.next), free(mine), free(sum);
    return rc;
}
