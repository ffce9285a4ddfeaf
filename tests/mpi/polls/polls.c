/*
 * polls.c - polling loops with known counts (tests/mpi/polls_loops.sh).
 *
 * Every rank exchanges with its partner (rank ^ 1) for ROUNDS rounds and
 * polls for the partner's messages, which come late (the partner computes
 * first): MPI_Test from one call site reached through two callers, taken
 * in turn (the path changes between polls), MPI_Iprobe from a second site,
 * MPI_Testany of two requests from a third and of one from a fourth (both
 * also on inactive requests at the end), and MPI_Test and MPI_Iprobe in
 * turn from one frame (hpcc's loop: two call sites, each node from
 * hprof's memo). Each poll's outcome is counted per call path, and so is
 * each poll that repeats the previous MPI call's path without completing
 * anything (the calls hprof records without a walk). At the end each rank
 * writes check_csv.py expectations (visits of every path, the bytes of
 * the receives its polls completed) and `repeats R N` to polls.expect.RANK.
 * Before that, each rank in turn waits WAIT_MS for its partner in a tight
 * MPI_Test loop that it times itself: hprof times one poll in N of such a
 * loop (lib/polls/poll_run.h), and the loop's MPI time is its polls'
 * time, never more than the wait, most of it (the loop's own
 * instructions between polls are computation: poll_gaps.c checks the
 * polls' time against the program's clock around each one).
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#define ROUNDS 40
#define WAIT_MS 40

enum {
    S_OTHER,
    S_TEST_X,
    S_TEST_Y,
    S_PROBE,
    S_ANY,
    S_ANY_ONE,
    S_MIX_TEST,
    S_MIX_PROBE,
    S_LONG,
    NSITES
};
static long visits[NSITES], unsuccessful[NSITES], received[NSITES], repeats;
/* the sites whose polls complete a receive of one int */
static const int receives[NSITES] = {
    [S_TEST_X] = 1, [S_TEST_Y] = 1, [S_ANY] = 1, [S_ANY_ONE] = 1, [S_MIX_TEST] = 1, [S_LONG] = 1
};
static int last_site = -1;
static long activation, last_activation; /* entries of the polling functions */

/* the program's own record of its MPI calls: a poll that completes
 * nothing from the same frame and call site as the previous call is a
 * repeat (its path is unchanged: no frame returned or entered between) */
static void counted(int site, int completed)
{
    visits[site]++;
    unsuccessful[site] += !completed;
    received[site] += completed && receives[site] ? (long)sizeof(int) : 0;
    if (!completed && site != S_OTHER && site == last_site && activation == last_activation)
        repeats++;
    last_site = site;
    last_activation = activation;
}

static void spin_us(long us)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

/* up to k polls of r from one frame; 1 when it completed */
static __attribute__((noinline)) int poll_some(MPI_Request *r, int k, int site)
{
    activation++;
    for (int i = 0; i < k; i++) {
        int flag = 0;
        MPI_Test(r, &flag, MPI_STATUS_IGNORE);
        counted(site, flag);
        if (flag)
            return 1;
    }
    return 0;
}

/* two callers of the same call site, taken in turn */
static __attribute__((noinline)) int via_x(MPI_Request *r)
{
    int f = poll_some(r, 5, S_TEST_X);
    __asm__ volatile("" ::: "memory"); /* not a tail call */
    return f;
}

static __attribute__((noinline)) int via_y(MPI_Request *r)
{
    int f = poll_some(r, 3, S_TEST_Y);
    __asm__ volatile("" ::: "memory");
    return f;
}

static __attribute__((noinline)) void probe_loop(int src)
{
    activation++;
    for (;;) {
        int flag = 0;
        MPI_Iprobe(src, 6, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        counted(S_PROBE, flag);
        if (flag)
            return;
    }
}

static __attribute__((noinline)) void any_loop(MPI_Request *rq)
{
    int left = 2, inactive = 0;
    activation++;
    /* after both completed, 3 more polls from the same call site: on
     * inactive requests MPI_Testany sets flag and an index of MPI_UNDEFINED,
     * having completed nothing */
    while (left > 0 || inactive < 3) {
        int idx, flag = 0;
        MPI_Testany(2, rq, &idx, &flag, MPI_STATUS_IGNORE);
        int completed = flag && idx != MPI_UNDEFINED;
        counted(S_ANY, completed);
        if (completed)
            left--;
        else if (flag)
            inactive++;
    }
}

/* MPI_Testany of one request (hpcc's loop), then 3 more polls on it inactive */
static __attribute__((noinline)) void any_one_loop(MPI_Request *r)
{
    int done = 0, inactive = 0;
    activation++;
    while (!done || inactive < 3) {
        int idx, flag = 0;
        MPI_Testany(1, r, &idx, &flag, MPI_STATUS_IGNORE);
        int completed = flag && idx != MPI_UNDEFINED;
        counted(S_ANY_ONE, completed);
        done |= completed;
        inactive += flag && !completed;
    }
}

/* MPI_Test and MPI_Iprobe in turn from one frame until both completed */
static __attribute__((noinline)) void mixed_loop(MPI_Request *r, int src)
{
    int tested = 0, probed = 0;
    activation++;
    while (!tested || !probed) {
        int flag = 0;
        if (!tested) {
            MPI_Test(r, &flag, MPI_STATUS_IGNORE);
            counted(S_MIX_TEST, flag);
            tested = flag;
        }
        flag = 0;
        if (!probed) {
            MPI_Iprobe(src, 7, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            counted(S_MIX_PROBE, flag);
            probed = flag;
        }
    }
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* polls r until it completes; the loop's time on the program's clock */
static __attribute__((noinline)) double long_wait(MPI_Request *r)
{
    int flag = 0;
    activation++;
    double t0 = now_s();
    while (!flag) {
        MPI_Test(r, &flag, MPI_STATUS_IGNORE);
        counted(S_LONG, flag);
    }
    return now_s() - t0;
}

static void other(int rc)
{
    (void)rc;
    counted(S_OTHER, 1);
}

/* This rank's expectations (check_csv.py) and its count of repeats. */
static void print_expectations(FILE *f, int rank, double waited)
{
    fprintf(f, "long_wait\tglob:*;long_wait;MPI_Test\t%d\tvisits\t==\t%ld\n", rank, visits[S_LONG]);
    fprintf(f, "long_wait_time\tglob:*;long_wait;MPI_Test\t%d\ttime\t>=\t%.6f\n", rank, waited * 0.25);
    fprintf(f, "long_wait_time\tglob:*;long_wait;MPI_Test\t%d\ttime\t<=\t%.6f\n", rank,
            waited * 1.05 + 0.0005);
    fprintf(f, "via_x\tglob:*;via_x;poll_some;MPI_Test\t%d\tvisits\t==\t%ld\n", rank, visits[S_TEST_X]);
    fprintf(f, "via_y\tglob:*;via_y;poll_some;MPI_Test\t%d\tvisits\t==\t%ld\n", rank, visits[S_TEST_Y]);
    fprintf(f, "iprobe\tglob:*;probe_loop;MPI_Iprobe\t%d\tvisits\t==\t%ld\n", rank, visits[S_PROBE]);
    fprintf(f, "testany\tglob:*;any_loop;MPI_Testany\t%d\tvisits\t==\t%ld\n", rank, visits[S_ANY]);
    fprintf(f, "testany\tglob:*;any_one_loop;MPI_Testany\t%d\tvisits\t==\t%ld\n", rank, visits[S_ANY_ONE]);
    fprintf(f, "mixed_test\tglob:*;mixed_loop;MPI_Test\t%d\tvisits\t==\t%ld\n", rank, visits[S_MIX_TEST]);
    fprintf(f, "mixed_probe\tglob:*;mixed_loop;MPI_Iprobe\t%d\tvisits\t==\t%ld\n", rank, visits[S_MIX_PROBE]);
    /* HPROF_POLLS=split: the polls that completed nothing, and the wait's time in them */
    static const char *const paths[NSITES] = { NULL,
                                               "via_x;poll_some;MPI_Test",
                                               "via_y;poll_some;MPI_Test",
                                               "probe_loop;MPI_Iprobe",
                                               "any_loop;MPI_Testany",
                                               "any_one_loop;MPI_Testany",
                                               "mixed_loop;MPI_Test",
                                               "mixed_loop;MPI_Iprobe",
                                               "long_wait;MPI_Test" };
    /* the bytes of receives that a poll completed, in the run of polls or not */
    for (int k = S_TEST_X; k < NSITES; k++)
        if (receives[k])
            fprintf(f, "received\tglob:*;%s\t%d\tbytes_received\t==\t%ld\n", paths[k], rank, received[k]);
    for (int k = S_TEST_X; k < NSITES; k++)
        fprintf(f, "split_polls\tglob:*;%s\t%d\tpolls_unsuccessful\t==\t%ld\n", paths[k], rank,
                unsuccessful[k]);
    fprintf(f, "split_time\tglob:*;long_wait;MPI_Test\t%d\tpolls_unsuccessful_time\t>=\t%.6f\n", rank,
            waited * 0.25);
    fprintf(f, "repeats %d %ld\n", rank, repeats);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int partner = rank ^ 1;
    if (partner >= size)
        partner = rank;
    int in = 0, out = rank, in2[2], out2[2] = { 1, 2 };
    for (int round = 0; round < ROUNDS; round++) {
        MPI_Request rr, sr, rq[2], sq[2];
        other(MPI_Irecv(&in, 1, MPI_INT, partner, 5, MPI_COMM_WORLD, &rr));
        spin_us(50 + 50 * rank);
        other(MPI_Isend(&out, 1, MPI_INT, partner, 5, MPI_COMM_WORLD, &sr));
        for (long i = 0;; i++)
            if (i % 2 ? via_y(&rr) : via_x(&rr))
                break;
        other(MPI_Wait(&sr, MPI_STATUS_IGNORE));

        spin_us(50 + 50 * rank);
        other(MPI_Isend(&out, 1, MPI_INT, partner, 6, MPI_COMM_WORLD, &sr));
        probe_loop(partner);
        other(MPI_Recv(&in, 1, MPI_INT, partner, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        other(MPI_Wait(&sr, MPI_STATUS_IGNORE));

        other(MPI_Irecv(&in2[0], 1, MPI_INT, partner, 8, MPI_COMM_WORLD, &rq[0]));
        other(MPI_Irecv(&in2[1], 1, MPI_INT, partner, 9, MPI_COMM_WORLD, &rq[1]));
        spin_us(30);
        other(MPI_Isend(&out2[0], 1, MPI_INT, partner, 8, MPI_COMM_WORLD, &sq[0]));
        spin_us(50 + 50 * rank);
        other(MPI_Isend(&out2[1], 1, MPI_INT, partner, 9, MPI_COMM_WORLD, &sq[1]));
        any_loop(rq);
        other(MPI_Waitall(2, sq, MPI_STATUSES_IGNORE));

        other(MPI_Irecv(&in, 1, MPI_INT, partner, 10, MPI_COMM_WORLD, &rr));
        spin_us(50 + 50 * rank);
        other(MPI_Isend(&out, 1, MPI_INT, partner, 10, MPI_COMM_WORLD, &sr));
        other(MPI_Isend(&out2[0], 1, MPI_INT, partner, 7, MPI_COMM_WORLD, &sq[0]));
        mixed_loop(&rr, partner);
        other(MPI_Recv(&in2[0], 1, MPI_INT, partner, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        other(MPI_Wait(&sr, MPI_STATUS_IGNORE));
        other(MPI_Wait(&sq[0], MPI_STATUS_IGNORE));

        other(MPI_Irecv(&in, 1, MPI_INT, partner, 12, MPI_COMM_WORLD, &rr));
        spin_us(50 + 50 * rank);
        other(MPI_Isend(&out, 1, MPI_INT, partner, 12, MPI_COMM_WORLD, &sr));
        any_one_loop(&rr);
        other(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    }
    /* each rank in turn waits while its partner computes */
    double waited = 0;
    for (int turn = 0; turn < 2; turn++) {
        MPI_Request r;
        MPI_Barrier(MPI_COMM_WORLD);
        if ((rank & 1) == turn) {
            MPI_Irecv(&in, 1, MPI_INT, partner, 11, MPI_COMM_WORLD, &r);
            waited = long_wait(&r);
        } else {
            spin_us(WAIT_MS * 1000L);
            MPI_Send(&out, 1, MPI_INT, partner, 11, MPI_COMM_WORLD);
        }
    }
    /* in a file of its own (polls.expect.RANK): the launcher may splice or
     * lose lines the ranks write to their outputs */
    char name[32];
    snprintf(name, sizeof name, "polls.expect.%d", rank);
    FILE *f = fopen(name, "w");
    print_expectations(f ? f : stdout, rank, waited);
    if (f)
        fclose(f);
    MPI_Finalize();
    return 0;
}
