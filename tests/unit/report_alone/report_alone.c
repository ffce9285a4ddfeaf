/*
 * report_alone.c - report/ without the runtime: a snapshot built by hand
 * (report/profile/snapshot.h: two threads, a few call paths, one PAPI-like
 * event) written as a one-rank profile by the fallback writer, which needs
 * no MPI. Linked from core/, unwind/ (modules, Python codes), report/cube/
 * writer and report/profile only, with an MPI function table of its own
 * (core/fn_table.h): no file of lib/ or wrappers/ (report_alone.sh).
 *
 * usage: report_alone OUTPUT.cubex [RANK [EVENT]]  -> writes OUTPUT.rank<RANK>.cubex
 * (RANK 0 and EVENT PAPI_TOT_INS by default; EVENT "-": none counted)
 * The call paths (keys are return addresses inside this program's own
 * functions, as the unwinder records them):
 *   thread 0: main -> solve -> MPI_Allreduce  7 visits, 7 ms; solve 3 samples, 30 ms
 *             main -> MPI_Send                2 visits, 64 bytes sent
 *   thread 1 ("worker thread"): worker -> MPI_Recv  4 visits, 128 bytes received
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cct.h"
#include "core/config.h"
#include "core/fn_table.h"
#include "report/profile/fallback.h"
#include "report/profile/snapshot.h"

const hprof_fn_info hprof_fn_table[] = { { "MPI_Allreduce", "coll", 0 },
                                         { "MPI_Send", "p2p", 0 },
                                         { "MPI_Recv", "p2p", 0 } };
const int hprof_fn_count = 3;
enum {
    ALLREDUCE,
    SEND,
    RECV
};

/* Functions whose code the keys point into (a return address is past a
 * call instruction: key - 1 is inside the function). */
volatile int sink;
__attribute__((noinline)) void solve(void)
{
    sink++, sink++, sink++;
}
__attribute__((noinline)) void worker(void)
{
    sink--, sink--, sink--;
}
static uint64_t inside(void (*f)(void))
{
    return (uint64_t)(uintptr_t)f + 4;
}

static uint32_t mpi_leaf(cct *t, uint32_t parent, int fn, uint64_t visits, uint64_t ns)
{
    uint32_t n = cct_child(t, parent, CCT_KEY_MPI_FN(fn));
    t->nodes[n].counter[CCT_VISITS] = visits;
    t->nodes[n].counter[CCT_MPI_TIME_NS] = ns;
    t->nodes[n].counter[CCT_MIN_NS] = ns / visits / 2;
    t->nodes[n].counter[CCT_MAX_NS] = ns / visits * 2;
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: report_alone OUTPUT.cubex [RANK [EVENT]]\n");
        return 2;
    }
    int rank = argc > 2 ? atoi(argv[2]) : 0;
    const char *event = argc > 3 ? argv[3] : "PAPI_TOT_INS";
    int nevents = strcmp(event, "-") != 0;
    hprof_config_load();
    cct t0, t1;
    if (cct_init(&t0, 64, 1024) != 0 || cct_init(&t1, 64, 1024) != 0)
        return 1;
    uint32_t m = cct_child(&t0, CCT_ROOT, inside((void (*)(void))main));
    uint32_t s = cct_child(&t0, m, inside(solve));
    t0.nodes[s].counter[CCT_SAMPLES] = 3;
    t0.nodes[s].counter[CCT_COMP_TIME_NS] = 30000000;
    t0.nodes[s].event[0] = 1000;
    uint32_t a = mpi_leaf(&t0, s, ALLREDUCE, 7, 7000000);
    t0.nodes[a].event[0] = 70;
    uint32_t snd = mpi_leaf(&t0, m, SEND, 2, 2000);
    t0.nodes[snd].counter[CCT_BYTES_SENT] = 64;
    uint32_t w = cct_child(&t1, CCT_ROOT, inside(worker));
    uint32_t r = mpi_leaf(&t1, w, RECV, 4, 4000);
    t1.nodes[r].counter[CCT_BYTES_RECEIVED] = 128;
    t1.nodes[w].event[0] = 5;

    snapshot_thread threads[2] = {
        { &t1, NULL, 1, inside(worker), 0, "worker thread" }, /* newest first, as the runtime's */
        { &t0, NULL, 0, 0, 0, NULL },
    };
    snapshot_event events[1] = { { event, "#", "A counter", 0 } };
    hprof_snapshot snap = { threads, 2, 2, NULL, events, nevents, nevents };
    const char *keys[1] = { "hprof::test" }, *values[1] = { "report_alone" };
    char path[4096], err[512];
    if (fallback_write(&snap, rank, rank + 1, argv[1], "written by report_alone", keys, values, 1, path,
                       sizeof path, err, sizeof err) != 0) {
        fprintf(stderr, "report_alone: %s\n", err);
        return 1;
    }
    printf("%s\n", path);
    cct_free(&t0);
    cct_free(&t1);
    return 0;
}
