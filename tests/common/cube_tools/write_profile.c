/*
 * write_profile - drives the CUBE writer for tests/common/cube_writer_roundtrip.sh.
 *
 *   write_profile roundtrip OUT   write a small rich profile; print on stdout
 *                                 the rows `hprof-view --csv` must print
 *   write_profile exists OUT      create over an existing OUT must fail
 *   write_profile abort OUT       define, write part of a metric, abort
 *   write_profile badorder OUT    rows out of order must fail (and clean up)
 *   write_profile create OUT      only create+define+commit (error reporting)
 *   write_profile big OUT         64 ranks, 10,000 cnodes, 10 metrics; prints
 *                                 "bytes N", cube_writer_bytes before commit
 *   write_profile sparse OUT      40 locations, rows declared present or not,
 *                                 long rows (zlib streams); prints every cell
 *                                 as "cnode,location,metric,value" and each
 *                                 metric's stored rows as "# N rows stored"
 *   write_profile undeclared OUT  a value in a row not declared present must fail
 *
 * Prints "error: <reason>" and exits 1 when a writer call fails unexpectedly;
 * exits 0 when the expected outcome happened.
 */
#include "report/cube/writer/cube_writer.h"
#include "report/cube/writer/cw_piece.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char err[256];

/* ---- the rich profile ------------------------------------------------------ */

enum {
    NREG = 8,
    NCN = 8,
    NPROC = 3,
    NLOC = 5,
    NMET = 8
};

static const cube_region_def regions[NREG] = {
    { "main", NULL, "/bin/app", "main.c", 3, 40, "user", "function", NULL },
    { "std::map<int, double>::find(int const&)", "_ZNSt3mapIidE4findERKi", "/bin/app", NULL, -1, -1,
      "sampling", "function", "a <descr> & more" },
    { "void exchange<A, B>(A&, B&)", "_Z8exchangeI1A1BEvRT_RT0_", "/bin/app", "x.cpp", 10, 20, "sampling",
      "function", NULL },
    { "MPI_Sendrecv", NULL, "", NULL, -1, -1, "mpi", "function", NULL },
    { "MPI_Allreduce", NULL, "", NULL, -1, -1, "mpi", "function", NULL },
    { "(not unwound)", NULL, "", NULL, -1, -1, "measurement", "artificial", NULL },
    { "odd \"quoted\" name's; semi", NULL, "/lib/a b.so", NULL, -1, -1, "sampling", "function", NULL },
    { "MPI_Barrier", NULL, "", NULL, -1, -1, "mpi", "function", NULL },
};

/* Not in preorder on purpose: the writer must reorder rows. */
static const cube_cnode_def cnodes[NCN] = {
    { -1, 0, NULL, -1 },       /* 0 main */
    { -1, 5, NULL, -1 },       /* 1 (not unwound) */
    { 0, 1, "main.c", 10 },    /* 2 main > find */
    { 1, 7, NULL, -1 },        /* 3 (not unwound) > MPI_Barrier */
    { 2, 2, "map.h", 42 },     /* 4 find > exchange */
    { 0, 4, "main.c", 20 },    /* 5 main > MPI_Allreduce */
    { 4, 3, "a&b<c>.cpp", 7 }, /* 6 exchange > MPI_Sendrecv */
    { 2, 6, NULL, 5 },         /* 7 find > odd */
};

static const cube_metric_def metrics[NMET] = {
    { "time", "Time", "DOUBLE", "sec", "wall time", 0, -1 },
    { "mpi_time", "MPI time", "DOUBLE", "sec", "time in MPI", 0, 0 },
    { "comp_time", "Computation", "DOUBLE", "sec", "sampled", 0, 0 },
    { "visits", "Visits", "UINT64", "occ", "visits", 0, -1 },
    { "min_time", "Min", "MINDOUBLE", "sec", "min", 0, -1 },
    { "max_time", "Max", "MAXDOUBLE", "sec", "max", 0, -1 },
    { "bytes_sent", "Bytes sent", "UINT64", "bytes", "sent & <counted>", 0, -1 },
    { "counter", "Signed inclusive counter", "INT64", "occ", "stored inclusive", 1, -1 },
};

static const char *const nodes[] = { "node-a", "node-b" };
static const cube_process_def procs[NPROC] = { { .rank = 0, .node = 0, .nthreads = 2 },
                                               { .rank = 1, .node = 1, .nthreads = 1 },
                                               { .rank = 2, .node = 0, .nthreads = 2 } };
static const int loc_rank[NLOC] = { 0, 0, 1, 2, 2 }, loc_thread[NLOC] = { 0, 1, 0, 0, 1 };
static const char *const attr_keys[] = { "hprof::note" }, *const attr_values[] = { "a \"b\" <c> & d" };

static int is_mpi(int c)
{
    return strncmp(regions[cnodes[c].region].name, "MPI_", 4) == 0;
}

/* Exclusive value as written (dyadic fractions: sums are exact in any order). */
static double excl_value(int m, int c, int l)
{
    double t = (c + 1) * 0.25 + l * 0.5;
    switch (m) {
    case 0: return t;
    case 1: return is_mpi(c) ? t : 0;
    case 2: return is_mpi(c) ? 0 : t;
    case 3: return (c == 7 && l == 4) ? 0 : c * 10 + l + 1;
    case 4: return (c == 7 && l == 4) ? 0 : (c + 1) * 0.125 + l;
    case 5: return (c == 7 && l == 4) ? 0 : (c + 1) * 0.5 + l;
    case 6: return !is_mpi(c) ? 0 : (c == 6 && l == 1) ? -5 : 1000 * (l + 1) + 0.4;
    default: return (c % 3 == 0) ? -(c + l + 1) : c + l + 1;
    }
}

/* What the file holds for an exclusive value: integers rounded/clamped. */
static double stored(int m, double v)
{
    if (m == 3 || m == 6)
        return v > 0 ? floor(v + 0.5) : 0;
    return m == 7 ? (double)llround(v) : v;
}

static double subtree(int m, int c, int l)
{
    double acc = stored(m, excl_value(m, c, l));
    for (int k = 0; k < NCN; k++) {
        if (cnodes[k].parent != c)
            continue;
        double v = subtree(m, k, l);
        if (m == 4)
            acc = v < acc ? v : acc;
        else if (m == 5)
            acc = v > acc ? v : acc;
        else
            acc += v;
    }
    return acc;
}

static void print_field(const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, stdout);
        return;
    }
    putchar('"');
    for (; *s; s++) {
        if (*s == '"')
            putchar('"');
        putchar(*s);
    }
    putchar('"');
}

static void print_path(int c)
{
    char buf[1024] = "";
    int chain[NCN], n = 0;
    for (int v = c; v >= 0; v = cnodes[v].parent)
        chain[n++] = v;
    for (int i = n - 1; i >= 0; i--) {
        strcat(buf, regions[cnodes[chain[i]].region].name);
        if (i)
            strcat(buf, ";");
    }
    print_field(buf);
}

static void print_num(int m, double v)
{
    if (m == 3 || m == 6 || m == 7)
        printf("%.0f", v);
    else
        printf("%.17g", v);
}

static void print_expected(void)
{
    for (int c = 0; c < NCN; c++)
        for (int l = 0; l < NLOC; l++)
            for (int m = 0; m < NMET; m++) {
                double ex = stored(m, excl_value(m, c, l)), in = subtree(m, c, l);
                if (ex == 0 && in == 0)
                    continue;
                print_path(c);
                printf(",%d,%d,%s,", loc_rank[l], loc_thread[l], metrics[m].uniq_name);
                print_num(m, ex);
                putchar(',');
                print_num(m, in);
                putchar('\n');
            }
}

static const char *machine_name = "test machine & co";

static cube_defs rich_defs(void)
{
    cube_defs d = { metrics, NMET, regions, NREG,  cnodes,    NCN,         machine_name,
                    nodes,   2,    procs,   NPROC, attr_keys, attr_values, 1 };
    return d;
}

static int die(void)
{
    printf("error: %s\n", err);
    return 1;
}

static int roundtrip(const char *out)
{
    cube_writer *w = cube_writer_create(out, 0, err, sizeof err);
    cube_defs d = rich_defs();
    if (!w || cube_writer_define(w, &d) < 0)
        return die();
    for (int m = NMET - 1; m >= 0; m--) { /* any metric order is fine */
        if (cube_writer_metric_begin(w, m) < 0)
            return die();
        for (int k = 0; k < NCN; k++) {
            int c = cube_writer_row_cnode(w, m, k);
            double row[NLOC];
            for (int l = 0; l < NLOC; l++)
                row[l] = metrics[m].inclusive ? subtree(m, c, l) : excl_value(m, c, l);
            if (cube_writer_metric_row(w, c, row) < 0)
                return die();
        }
        if (cube_writer_metric_end(w) < 0)
            return die();
    }
    if (cube_writer_commit(w, err, sizeof err) < 0)
        return die();
    print_expected();
    return 0;
}

/* ---- error paths ------------------------------------------------------------- */

static int expect_create_fails(const char *out)
{
    cube_writer *w = cube_writer_create(out, 0, err, sizeof err);
    if (w) {
        cube_writer_abort(w);
        printf("error: create succeeded over an existing file\n");
        return 1;
    }
    printf("%s\n", err);
    return 0;
}

static int abort_midway(const char *out, int bad_order)
{
    cube_writer *w = cube_writer_create(out, 0, err, sizeof err);
    cube_defs d = rich_defs();
    double row[NLOC] = { 1, 2, 3, 4, 5 };
    if (!w || cube_writer_define(w, &d) < 0 || cube_writer_metric_begin(w, 0) < 0 ||
        cube_writer_metric_row(w, 0, row) < 0)
        return die();
    if (bad_order) {
        if (cube_writer_metric_row(w, cube_writer_row_cnode(w, 0, 2), row) == 0) {
            printf("error: out-of-order row accepted\n");
            return 1;
        }
        printf("%s\n", cube_writer_error(w));
        if (cube_writer_commit(w, err, sizeof err) == 0) {
            printf("error: commit after a failure succeeded\n");
            return 1;
        }
        return 0;
    }
    cube_writer_abort(w);
    return 0;
}

static int create_only(const char *out)
{
    cube_writer *w = cube_writer_create(out, 1, err, sizeof err);
    cube_defs d = rich_defs();
    if (!w) {
        printf("%s\n", err);
        return 0;
    }
    if (cube_writer_define(w, &d) < 0 || cube_writer_commit(w, err, sizeof err) < 0)
        return die();
    return 0;
}

/* ---- a large profile for load-time checks ---------------------------------- */

static int big(const char *out)
{
    enum {
        BN = 10000,
        BP = 64,
        BM = 10
    };
    static cube_cnode_def cn[BN];
    static cube_region_def rg[100];
    static cube_metric_def mt[BM];
    static cube_process_def pr[BP];
    static char names[100][16], mnames[BM][16];
    const char *host[] = { "host" };
    for (int r = 0; r < 100; r++) {
        snprintf(names[r], sizeof names[r], "func%d", r);
        rg[r] = (cube_region_def){ names[r], NULL, "/bin/x", NULL, -1, -1, "sampling", "function", NULL };
    }
    for (int c = 0; c < BN; c++) /* a bushy tree of depth ~ 10 */
        cn[c] = (cube_cnode_def){ c == 0 ? -1 : (c - 1) / 3, c % 100, NULL, -1 };
    for (int m = 0; m < BM; m++) {
        snprintf(mnames[m], sizeof mnames[m], "m%d", m);
        mt[m] = (cube_metric_def){ mnames[m], mnames[m], m % 2 ? "UINT64" : "DOUBLE", "occ", "", 0, -1 };
    }
    for (int p = 0; p < BP; p++)
        pr[p] = (cube_process_def){ .rank = p, .node = 0, .nthreads = 1 };
    cube_defs d = { mt, BM, rg, 100, cn, BN, "m", host, 1, pr, BP, NULL, NULL, 0 };
    cube_writer *w = cube_writer_create(out, 1, err, sizeof err);
    if (!w || cube_writer_define(w, &d) < 0)
        return die();
    double row[BP];
    for (int m = 0; m < BM; m++) {
        if (cube_writer_metric_begin(w, m) < 0)
            return die();
        for (int k = 0; k < BN; k++) {
            int c = cube_writer_row_cnode(w, m, k);
            for (int l = 0; l < BP; l++)
                row[l] = (double)((c * 7 + l * 13 + m) % 101) * 0.5;
            if (cube_writer_metric_row(w, c, row) < 0)
                return die();
        }
        if (cube_writer_metric_end(w) < 0)
            return die();
    }
    /* what the merge's 'wrote FILE (N bytes' line says: the size after commit */
    printf("bytes %lld\n", cube_writer_bytes(w));
    return cube_writer_commit(w, err, sizeof err) < 0 ? die() : 0;
}

/* ---- rows declared present, long rows ------------------------------------ */

enum {
    SN = 300,
    SP = 5,
    ST = 8,
    SL = SP * ST,
    SM = 5
};

/* Bits that do not compress: a row of them takes more room as one zlib
 * stream of the writer's settings than compressBound allows (times of 64
 * ranks failed to write so). */
static double noise(int c, int l)
{
    uint64_t x = (uint64_t)c * 0x9E3779B97F4A7C15ull ^ (uint64_t)(l + 1) * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 31, x *= 0x94D049BB133111EBull, x ^= x >> 29;
    return (double)(x >> 11) * 0x1p-53 + 1.0;
}

/* The value of metric m at cnode c, location l; which rows m stores. */
static double sparse_value(int m, int c, int l)
{
    switch (m) {
    case 0: return noise(c, l);                                    /* every row, incompressible */
    case 1: return c % 3 == 0 ? (double)(1 + (c / 30)) : 0;        /* runs of equal rows */
    case 2: return 0;                                              /* nothing */
    case 3: return c % 5 == 0 && l % 2 ? (double)c * 1e-3 + l : 0; /* every 5th row, half the locations */
    default: return c == SN - 1 ? 42.0 : 0;                        /* the last row only */
    }
}

static int sparse_npresent; /* of the metric begun last */
static int pieces_next;     /* its next row (put_pieces) */

static int sparse_begin(cube_writer *w, int m, unsigned char *present)
{
    int n = 0;
    memset(present, 0, (SN + 7) / 8);
    for (int k = 0; k < SN; k++) {
        int c = cube_writer_row_cnode(w, m, k), any = 0;
        for (int l = 0; l < SL; l++)
            any |= sparse_value(m, c, l) != 0;
        if (any || (m == 3 && k % 7 == 0)) { /* metric 3: some rows of zeros listed too */
            present[k / 8] |= (unsigned char)(1u << (k % 8));
            n++;
        }
    }
    printf("# %d rows stored\n", m == 0 || m == 3 ? SN : n > 0 ? n : 1); /* 3: MAXDOUBLE, dense */
    sparse_npresent = n;
    return m == 0 ? cube_writer_metric_begin(w, m) : cube_writer_metric_begin_sparse(w, m, present, n);
}

/* A row as the merge's aggregators make it: cut into pieces of 7, 16 and
 * 17 locations, each encoded and compressed on its own (cw_piece.h); only
 * the rows stored are given, the others left to the writer. */
static int put_pieces(cube_writer *w, const cube_metric_def *mt, const unsigned char *present, int k,
                      const double *row)
{
    static const int cut[4] = { 0, 7, 23, SL };
    unsigned char enc[SL * 8];
    unsigned char *z[3] = { NULL, NULL, NULL };
    cube_row_piece p[3];
    if (!cube_row_stored(mt->dtype, present, sparse_npresent, k))
        return 0;
    pieces_next = k + 1;
    int nonzero = cube_encode_values(enc, row, SL, cube_dtype_code(mt->dtype)), rc = 0;
    for (int i = 0; i < 3; i++) {
        size_t len = (size_t)(cut[i + 1] - cut[i]) * 8;
        const unsigned char *raw = enc + (size_t)cut[i] * 8;
        p[i] = (cube_row_piece){ raw, len, len, cw_piece_adler(raw, len) };
        cw_piece_deflater d;
        if (cube_rows_zlib(1, SL) &&
            (cw_piece_init(&d, len) != 0 || !(p[i].len = cw_piece_deflate(&d, raw)))) {
            snprintf(err, sizeof err, "piece %d of row %d failed", i, k);
            return -1;
        }
        if (cube_rows_zlib(1, SL)) {
            z[i] = malloc(p[i].len);
            memcpy(z[i], d.buf, p[i].len);
            p[i].data = z[i];
            cw_piece_free(&d);
        }
    }
    rc = cube_writer_metric_row_pieces(w, k, p, 3, nonzero);
    for (int i = 0; i < 3; i++)
        free(z[i]);
    return rc;
}

static int use_pieces; /* sparse(): rows given in pieces */

static int sparse(const char *out, int undeclared)
{
    static cube_cnode_def cn[SN];
    static cube_region_def rg[10];
    static char names[10][16];
    static const cube_metric_def mt[SM] = {
        { "dense", "dense", "DOUBLE", "sec", "", 0, -1 }, { "runs", "runs", "UINT64", "occ", "", 0, -1 },
        { "none", "none", "UINT64", "occ", "", 0, -1 },   { "fifth", "fifth", "MAXDOUBLE", "sec", "", 0, -1 },
        { "last", "last", "INT64", "occ", "", 0, -1 },
    };
    cube_process_def pr[SP];
    const char *host[] = { "host" };
    for (int r = 0; r < 10; r++) {
        snprintf(names[r], sizeof names[r], "f%d", r);
        rg[r] = (cube_region_def){ names[r], NULL, "/bin/x", NULL, -1, -1, "sampling", "function", NULL };
    }
    for (int c = 0; c < SN; c++)
        cn[c] = (cube_cnode_def){ c == 0 ? -1 : (c - 1) / 2, c % 10, NULL, -1 };
    for (int p = 0; p < SP; p++)
        pr[p] = (cube_process_def){ .rank = p, .node = 0, .nthreads = ST };
    cube_defs d = { mt, SM, rg, 10, cn, SN, "m", host, 1, pr, SP, NULL, NULL, 0 };
    cube_writer *w = cube_writer_create(out, 1, err, sizeof err);
    if (!w || cube_writer_define(w, &d) < 0)
        return die();
    unsigned char present[(SN + 7) / 8];
    double row[SL];
    for (int m = 0; m < SM; m++) {
        if (sparse_begin(w, m, present) < 0)
            return die();
        for (int k = 0; k < SN; k++) {
            int c = cube_writer_row_cnode(w, m, k);
            for (int l = 0; l < SL; l++)
                row[l] = sparse_value(m, c, l) + (undeclared && m == 2 && k == 3);
            if ((use_pieces ? put_pieces(w, &mt[m], m == 0 ? NULL : present, k, row)
                            : cube_writer_metric_row(w, c, row)) < 0) {
                if (undeclared && strstr(err, "not declared present")) {
                    cube_writer_abort(w);
                    return 0;
                }
                return die();
            }
            for (int l = 0; !undeclared && l < SL; l++)
                printf("%d,%d,%s,%.17g\n", k, l, mt[m].uniq_name, row[l]); /* file cnode id: preorder */
        }
        if (use_pieces && cube_writer_metric_rows(w, pieces_next, SN - pieces_next, NULL) < 0)
            return die();
        pieces_next = 0;
        if (cube_writer_metric_end(w) < 0)
            return die();
    }
    if (undeclared) {
        printf("error: a value in a row not declared present was accepted\n");
        return 1;
    }
    return cube_writer_commit(w, err, sizeof err) < 0 ? die() : 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: write_profile "
                        "roundtrip|exists|abort|badorder|create|big|sparse|undeclared|pieces|padN OUT\n");
        return 2;
    }
    const char *mode = argv[1], *out = argv[2];
    if (strcmp(mode, "roundtrip") == 0)
        return roundtrip(out);
    if (strcmp(mode, "exists") == 0)
        return expect_create_fails(out);
    if (strcmp(mode, "abort") == 0)
        return abort_midway(out, 0);
    if (strcmp(mode, "badorder") == 0)
        return abort_midway(out, 1);
    if (strcmp(mode, "create") == 0)
        return create_only(out);
    if (strcmp(mode, "big") == 0)
        return big(out);
    if (strcmp(mode, "sparse") == 0)
        return sparse(out, 0);
    if (strcmp(mode, "undeclared") == 0)
        return sparse(out, 1);
    if (strcmp(mode, "pieces") == 0) {
        use_pieces = 1;
        return sparse(out, 0);
    }
    if (strncmp(mode, "pad", 3) == 0) { /* padN: roundtrip, machine name N bytes longer */
        static char name[4096];
        int n = atoi(mode + 3);
        snprintf(
            name, sizeof name, "m%.*s", n < 4000 ? n : 4000,
            "................................................................................................"
            "................................................................................................"
            "................................................................................................"
            "................................................................................................"
            "................................................................................................"
            "..............................................................................................."
            ".");
        machine_name = name;
        return roundtrip(out);
    }
    fprintf(stderr, "write_profile: unknown mode %s\n", mode);
    return 2;
}
