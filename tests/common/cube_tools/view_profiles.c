/*
 * view_profiles - writes small profiles with exact (dyadic) values for the
 * hprof-view tests (tests/common/view_*.sh), through report/cube/writer.
 *
 *   view_profiles drops OUT     8 ranks, DROPS-like: ranks 1..7 wait in
 *                               MPI_Allreduce (6.5 s each) while rank 0
 *                               writes under std::endl (6 s, through
 *                               libstdc++/libc internals)
 *   view_profiles fixed OUT     the same program after the fix: rank 0's
 *                               output takes 0.5 s, the others wait 1 s
 *   view_profiles entries OUT   "drops" with function_entries_seen (function
 *                               visits, a lower bound, in their own metric)
 *   view_profiles threads OUT   2 ranks x 2 threads, a Score-P style file
 *                               (no hprof attributes), one MPI call
 *
 * Per rank in "drops" (seconds):      rank 0   ranks 1..7
 *   main (exclusive)                  0.25     0.25
 *   main > MPI_Init                   0.25     0.25
 *   main > solve > compute            2.0      2.0
 *   main > solve > MPI_Allreduce      0.5      6.5      (100 calls, 800 B sent)
 *   main > solve > MPI_Send           0.0625   0.0625   (10 calls, 40960 B sent)
 *   main > output > std::endl        0 excl   -
 *     > std::ostream::flush [libstdc++] 0.5
 *       > write [libc]                5.5
 *   (not unwound) > MPI_Comm_rank     0.0625   0.0625
 * Total per rank 9.125 s (rank 0: 9.125 s as well), 73 s in all.
 */
#include "report/cube/writer/cube_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char err[256];

enum {
    R_MAIN,
    R_INIT,
    R_SOLVE,
    R_COMPUTE,
    R_ALLRED,
    R_SEND,
    R_OUTPUT,
    R_ENDL,
    R_FLUSH,
    R_WRITE,
    R_NU,
    R_RANK,
    NREG
};
enum {
    C_MAIN,
    C_INIT,
    C_SOLVE,
    C_COMPUTE,
    C_ALLRED,
    C_SEND,
    C_OUTPUT,
    C_ENDL,
    C_FLUSH,
    C_WRITE,
    C_NU,
    C_RANK,
    NCN
};
enum {
    M_TIME,
    M_MPI,
    M_COMP,
    M_VISITS,
    M_MIN,
    M_MAX,
    M_SENT,
    M_RECV,
    M_SAMPLES,
    M_ENTRIES,
    NMET_ALL
};
enum {
    NMET = M_ENTRIES
}; /* function_entries_seen only in "entries" */
enum {
    NRANK = 8
};

static const cube_region_def regions[NREG] = {
    [R_MAIN] = { "main", NULL, "/app/drops", "drops.cc", 10, 60, "sampling", "function", NULL },
    [R_INIT] = { "MPI_Init", NULL, "", NULL, -1, -1, "mpi", "function", NULL },
    [R_SOLVE] = { "solve(Grid&)", "_Z5solveR4Grid", "/app/drops", "solve.cc", 5, 50, "sampling", "function",
                  NULL },
    [R_COMPUTE] = { "compute", NULL, "/app/drops", "solve.cc", 60, 90, "sampling", "function", NULL },
    [R_ALLRED] = { "MPI_Allreduce", NULL, "", NULL, -1, -1, "mpi", "function", NULL },
    [R_SEND] = { "MPI_Send", NULL, "", NULL, -1, -1, "mpi", "function", NULL },
    [R_OUTPUT] = { "output", NULL, "/app/drops", "io.cc", 3, 30, "sampling", "function", NULL },
    [R_ENDL] = { "std::endl", "_ZSt4endlIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_",
                 "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "ostream", 1, 2, "sampling", "function", NULL },
    [R_FLUSH] = { "std::ostream::flush()", "_ZNSo5flushEv", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
                  "ostream.tcc", 1, 2, "sampling", "function", NULL },
    [R_WRITE] = { "write", NULL, "/usr/lib/x86_64-linux-gnu/libc.so.6", "write.c", 1, 2, "sampling",
                  "function", NULL },
    [R_NU] = { "(not unwound)", NULL, "", NULL, -1, -1, "measurement", "artificial", NULL },
    [R_RANK] = { "MPI_Comm_rank", NULL, "", NULL, -1, -1, "mpi", "function", NULL },
};

static const cube_cnode_def cnodes[NCN] = {
    [C_MAIN] = { -1, R_MAIN, NULL, -1 },
    [C_INIT] = { C_MAIN, R_INIT, "drops.cc", 12 },
    [C_SOLVE] = { C_MAIN, R_SOLVE, "drops.cc", 20 },
    [C_COMPUTE] = { C_SOLVE, R_COMPUTE, "solve.cc", 30 },
    [C_ALLRED] = { C_SOLVE, R_ALLRED, "solve.cc", 42 },
    [C_SEND] = { C_SOLVE, R_SEND, "solve.cc", 44 },
    [C_OUTPUT] = { C_MAIN, R_OUTPUT, "drops.cc", 25 },
    [C_ENDL] = { C_OUTPUT, R_ENDL, "io.cc", 17 },
    [C_FLUSH] = { C_ENDL, R_FLUSH, NULL, -1 },
    [C_WRITE] = { C_FLUSH, R_WRITE, NULL, -1 },
    [C_NU] = { -1, R_NU, NULL, -1 },
    [C_RANK] = { C_NU, R_RANK, NULL, -1 },
};

static const cube_metric_def metrics[NMET_ALL] = {
    [M_TIME] = { "time", "Time", "DOUBLE", "sec", "wall time", 0, -1 },
    [M_MPI] = { "mpi_time", "MPI", "DOUBLE", "sec", "MPI time", 0, M_TIME },
    [M_COMP] = { "comp_time", "Computation", "DOUBLE", "sec", "computation", 0, M_TIME },
    [M_VISITS] = { "visits", "Visits", "UINT64", "occ", "calls", 0, -1 },
    [M_MIN] = { "min_time", "Min", "MINDOUBLE", "sec", "shortest call", 0, -1 },
    [M_MAX] = { "max_time", "Max", "MAXDOUBLE", "sec", "longest call", 0, -1 },
    [M_SENT] = { "bytes_sent", "bytes_sent", "UINT64", "bytes", "sent", 0, -1 },
    [M_RECV] = { "bytes_received", "bytes_received", "UINT64", "bytes", "received", 0, -1 },
    [M_SAMPLES] = { "samples", "Samples", "UINT64", "occ", "samples", 0, -1 },
    [M_ENTRIES] = { "function_entries_seen", "Function entries seen", "UINT64", "occ",
                    "entries of functions seen by the thunk stack (a lower bound)", 0, -1 },
};

static int fixed, nmet = NMET;

static int is_mpi(int c)
{
    return regions[cnodes[c].region].paradigm[0] == 'm' && regions[cnodes[c].region].paradigm[1] == 'p';
}

static double time_of(int c, int r)
{
    switch (c) {
    case C_MAIN:
    case C_INIT: return 0.25;
    case C_COMPUTE: return 2.0;
    case C_ALLRED: return r == 0 ? 0.5 : fixed ? 1.0 : 6.5;
    case C_SEND:
    case C_RANK: return 0.0625;
    case C_FLUSH: return r == 0 ? (fixed ? 0.25 : 0.5) : 0;
    case C_WRITE: return r == 0 ? (fixed ? 0.25 : 5.5) : 0;
    default: return 0;
    }
}

static double value(int m, int c, int r)
{
    double t = time_of(c, r);
    switch (m) {
    case M_TIME: return t;
    case M_MPI: return is_mpi(c) ? t : 0;
    case M_COMP: return is_mpi(c) ? 0 : t;
    case M_VISITS: return c == C_ALLRED ? 100 : c == C_SEND ? 10 : (c == C_INIT || c == C_RANK) ? 1 : 0;
    case M_MIN: return c == C_ALLRED ? t / 128 : is_mpi(c) ? t : 0;
    case M_MAX: return c == C_ALLRED ? t / 16 : is_mpi(c) ? t : 0;
    case M_SENT: return c == C_ALLRED ? 800 : c == C_SEND ? 40960 : 0;
    case M_RECV: return c == C_ALLRED ? 800 : 0;
    case M_SAMPLES: return is_mpi(c) ? 0 : t * 100;
    /* a lower bound per rank: compute 100, the output chain 20 on rank 0 */
    case M_ENTRIES:
        return c == C_COMPUTE                                                             ? 100
               : (c == C_MAIN || c == C_SOLVE)                                            ? 1
               : (c == C_OUTPUT || c == C_ENDL || c == C_FLUSH || c == C_WRITE) && r == 0 ? 20
                                                                                          : 0;
    default: return 0;
    }
}

static int die(void)
{
    printf("error: %s\n", err);
    return 1;
}

static int drops(const char *out)
{
    static const char *const nodes[] = { "node-a", "node-b" };
    cube_process_def procs[NRANK];
    for (int r = 0; r < NRANK; r++)
        procs[r] = (cube_process_def){ .rank = r, .node = r / 4, .nthreads = 1 };
    static char hist[NRANK + 1][200];
    const char *keys[6 + NRANK + 1], *vals[6 + NRANK + 1];
    int na = 0;
    keys[na] = "hprof::version", vals[na++] = "0.1.0";
    keys[na] = "hprof::command", vals[na++] = fixed ? "./drops --async-output" : "./drops --grid 64";
    keys[na] = "hprof::ranks", vals[na++] = "8";
    keys[na] = "hprof::sampling_hz", vals[na++] = "100";
    keys[na] = "hprof::sampling_clock", vals[na++] = "wall";
    keys[na] = "hprof::date", vals[na++] = "2024-05-01T12:00:00+0000";
    /* histogram: rank r has 10 samples at 1.0 (bucket 8), r at 2.0 (bucket 16) */
    for (int r = 0; r <= NRANK; r++) {
        int off = 0;
        for (int i = 0; i < 41; i++) {
            int v = r == NRANK ? (i == 8 ? 80 : i == 16 ? 28 : 0) : (i == 8 ? 10 : i == 16 ? r : 0);
            off += snprintf(hist[r] + off, sizeof hist[r] - (size_t)off, i ? " %d" : "%d", v);
        }
    }
    keys[na] = "hprof::interval_histogram", vals[na++] = hist[NRANK];
    static char rk[NRANK][64];
    for (int r = 0; r < NRANK; r++) {
        snprintf(rk[r], sizeof rk[r], "hprof::interval_histogram::rank::%d", r);
        keys[na] = rk[r], vals[na++] = hist[r];
    }
    cube_defs d = { metrics, nmet, regions, NREG,  cnodes, NCN,  "cluster",
                    nodes,   2,    procs,   NRANK, keys,   vals, na };
    cube_writer *w = cube_writer_create(out, 1, err, sizeof err);
    if (!w || cube_writer_define(w, &d) < 0)
        return die();
    for (int m = 0; m < nmet; m++) {
        if (cube_writer_metric_begin(w, m) < 0)
            return die();
        for (int k = 0; k < NCN; k++) {
            int c = cube_writer_row_cnode(w, m, k);
            double row[NRANK];
            for (int r = 0; r < NRANK; r++)
                row[r] = value(m, c, r);
            if (cube_writer_metric_row(w, c, row) < 0)
                return die();
        }
        if (cube_writer_metric_end(w) < 0)
            return die();
    }
    return cube_writer_commit(w, err, sizeof err) < 0 ? die() : 0;
}

/* 2 ranks x 2 threads: main (1 s excl per location), main > work (loc l:
 * 0.5 * (l + 1)), main > MPI_Barrier (0.25 on thread 0 only). */
static int threads(const char *out)
{
    static const cube_region_def rg[] = {
        { "main", NULL, "", "t.c", 1, 9, "user", "function", NULL },
        { "work", NULL, "", "t.c", 10, 19, "openmp", "function", NULL },
        { "MPI_Barrier", NULL, "", NULL, -1, -1, "mpi", "function", NULL },
    };
    static const cube_cnode_def cn[] = { { -1, 0, NULL, -1 }, { 0, 1, "t.c", 5 }, { 0, 2, "t.c", 6 } };
    static const cube_metric_def mt[] = {
        { "time", "Time", "DOUBLE", "sec", "time", 0, -1 },
        { "visits", "Visits", "UINT64", "occ", "visits", 0, -1 },
    };
    static const char *const nodes[] = { "n0" };
    static const cube_process_def pr[] = { { .rank = 0, .node = 0, .nthreads = 2 },
                                           { .rank = 1, .node = 0, .nthreads = 2 } };
    cube_defs d = { mt, 2, rg, 3, cn, 3, "m", nodes, 1, pr, 2, NULL, NULL, 0 };
    cube_writer *w = cube_writer_create(out, 1, err, sizeof err);
    if (!w || cube_writer_define(w, &d) < 0)
        return die();
    for (int m = 0; m < 2; m++) {
        if (cube_writer_metric_begin(w, m) < 0)
            return die();
        for (int k = 0; k < 3; k++) {
            int c = cube_writer_row_cnode(w, m, k);
            double row[4];
            for (int l = 0; l < 4; l++) {
                double t = c == 0 ? 1 : c == 1 ? 0.5 * (l + 1) : (l % 2 == 0 ? 0.25 : 0);
                row[l] = m == 0 ? t : (t > 0 ? 1 + c : 0);
            }
            if (cube_writer_metric_row(w, c, row) < 0)
                return die();
        }
        if (cube_writer_metric_end(w) < 0)
            return die();
    }
    return cube_writer_commit(w, err, sizeof err) < 0 ? die() : 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: view_profiles drops|fixed|threads OUT\n");
        return 2;
    }
    if (strcmp(argv[1], "drops") == 0)
        return drops(argv[2]);
    if (strcmp(argv[1], "fixed") == 0)
        return fixed = 1, drops(argv[2]);
    if (strcmp(argv[1], "entries") == 0)
        return nmet = NMET_ALL, drops(argv[2]);
    if (strcmp(argv[1], "threads") == 0)
        return threads(argv[2]);
    fprintf(stderr, "view_profiles: unknown mode %s\n", argv[1]);
    return 2;
}
