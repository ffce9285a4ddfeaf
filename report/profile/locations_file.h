/*
 * locations_file.h - a reduced profile's locations (issue 41,
 * HPROF_LOCATIONS=reduced): instead of one location per rank, six that
 * summarise the ranks per call path and metric: the sum over the ranks,
 * their min and max, and the rows of three key ranks (rank 0, the ranks
 * with the least and the most time). A metric whose own kind is a min or
 * max (MINDOUBLE, MAXDOUBLE) reduces as such, its "sum" too; a rank's
 * threads are taken together (summed, or their min or max). The ranks
 * where min and max occur go into their own member (LOCATIONS_MEMBER).
 *
 * Without MPI: the shape of the file, one serial step of the reduction and
 * the writer of the rows and the member, shared by MPI_Finalize's merge
 * (report/merge/location_reduce.h, which reduces over the ranks) and the
 * offline merge (tools/hprof-merge, which folds its inputs one by one).
 */
#ifndef HPROF_LOCATIONS_FILE_H
#define HPROF_LOCATIONS_FILE_H

#include <stddef.h>
#include <zlib.h>

#include "report/cube/writer/cube_writer.h"

/* HPROF_LOCATIONS=auto reduces a file of more ranks than this: the
 * largest power of two at which every rank's row of a call path (8 bytes
 * a location) is still 128 KB and a Cube view of every rank still opens
 * in seconds. */
#define LOCATIONS_AUTO_RANKS 16384

/* The member: a zlib stream of the header (LOCATIONS_MAGIC, then uint32
 * version 1, nmetrics, nrows, uint64 ranks) and per metric, per row (file
 * cnode id) the int32 ranks of the min and the max (-1: no rank has a
 * value there), all little-endian. Ranks are the numbers the full file
 * gives the processes: their MPI_COMM_WORLD ranks (r*K+j simulated). */
#define LOCATIONS_MEMBER "hprof.locations.z"
#define LOCATIONS_MAGIC "HPROFLOC"

/* The file's attribute: its first LOC_RANK0 locations stand for all ranks */
#define LOCATIONS_ATTR "hprof::locations"
/* The one node of a reduced file's system tree */
#define LOCATIONS_NODE "all nodes"

#define LOCATIONS_CHUNK (1 << 15) /* rows a writer takes at once: 2 MiB of reduction */
#define LOCATIONS_NKEYS 3         /* rank 0, least time, most time */

enum location_kind {
    LOC_SUM,
    LOC_MIN,
    LOC_MAX,
    LOC_RANK0,
    LOC_LEAST,
    LOC_MOST,
    LOC_COUNT
};

/* A (call path, metric)'s reduction as it is folded: sum, min, max, the
 * ranks of min and max (doubles: exact to 2^53), the key ranks' values. */
enum {
    FOLD_SUM,
    FOLD_MIN,
    FOLD_MAX,
    FOLD_ARGMIN,
    FOLD_ARGMAX,
    FOLD_KEY,
    FOLD_LEN = FOLD_KEY + LOCATIONS_NKEYS
};
#define LOCATIONS_NO_RANK 1e300 /* loses every tie: no rank holds a value */

enum locations_value_kind {
    LOCATIONS_SUMS,
    LOCATIONS_MINS,
    LOCATIONS_MAXS
};

typedef struct locations_metric {
    enum locations_value_kind kind;
    int floating; /* simulated values scale (report/merge/group_rows.h) */
} locations_metric;

/* setting: enum hprof_locations (core/config.h); nranks: of the file. */
int locations_wanted(int setting, long long nranks);

/* The six processes (node 0, one thread each), named "sum of N ranks",
 * "min", "max", "rank L0", "rank L1: least time", "rank L2: most time";
 * procs point into names. */
void locations_processes(long long nranks, const long long label[LOCATIONS_NKEYS], char names[LOC_COUNT][64],
                         cube_process_def procs[LOC_COUNT]);

/* How a metric of this CUBE dtype reduces. */
locations_metric locations_metric_of(const char *dtype);

/* One more thread x of a rank into its value v (has: some thread has one). */
void locations_take_thread(double *v, int *has, enum locations_value_kind kind, double x);

/* Rank r's value v as the element (FOLD_LEN doubles) of its K simulated
 * ranks r*K+j, each v x (1 + j/(4K)) if floating; where min and max are,
 * as ranks of the file from first; key: the key ranks as r*K+j. K = 1,
 * r = first: one rank of its own. */
void locations_element(double *e, double v, int has, locations_metric mi, long long r, long long k,
                       long long first, const long long *key);

/* into = into folded with from: commutative, ties go to the lower rank. */
void locations_fold(double *into, const double *from);

/* The writer of a reduced file's rows and member, chunk by chunk. */
typedef struct locations_out {
    cube_writer *w; /* NULL after a failure */
    int metric;     /* begun, -1 before the first */
    int nmetrics, nrows;
    locations_metric *metrics;
    double *rows; /* a chunk's rows of LOC_COUNT values */
    z_stream z;
    unsigned char *member;
    size_t len, cap;
    int zok;
} locations_out;

/* After cube_writer_define: nmetrics metrics of these dtypes, nrows call
 * paths, nranks ranks summarised. 0, or -1 out of memory (close it all
 * the same). */
int locations_out_open(locations_out *o, cube_writer *w, int nmetrics, const char *const *dtypes, int nrows,
                       long long nranks);
/* Units u0 .. u0+n-1 (unit = metric x nrows + row, the row its position
 * in the metric's row order, which is the file's cnode id; n <=
 * LOCATIONS_CHUNK), FOLD_LEN doubles each: their rows into the file and
 * their ranks of min and max into the member. */
void locations_out_chunk(locations_out *o, long long u0, int n, const double *e);
/* Ends the last metric, adds the member and frees o: 0, or -1 when
 * something failed (the writer then holds the reason). */
int locations_out_close(locations_out *o);

#endif
