/*
 * poll_gaps.c - polling loops with computation between their polls, timed
 * by the program itself (tests/mpi/polls_loops.sh, bench section 1d; issue
 * 30 point 1).
 *
 * For each gap G (ns) a function case_G polls MPI_Test on a receive that
 * completes nothing (an MPI_Irecv on MPI_COMM_SELF nobody sends to until
 * the end) and computes G ns between polls (a spin on CLOCK_MONOTONIC, so
 * G is wall time), for MS milliseconds. The program times every poll,
 * d = t1 - t0 around MPI_Test: the time in the call, as every tool defines
 * an MPI call's time. The truth takes out of the sum of d what is not the
 * polls' own:
 *  - its clock's part in each d (two reads cost as much as a poll of 30
 *    ns). The loop runs in blocks of K iterations, in pairs: one block
 *    polls, the other is the same loop around an empty function (in turn
 *    first and second), and the clock's part is the empty block's sum of d,
 *    measured every ~20 us in the state the polls are in (cold caches after
 *    microseconds of computation, the speed this shared VM runs at, which
 *    changes every few seconds), not once at the start;
 *  - the time the thread was descheduled in a d: a pair where either
 *    block's sum of d is over 16 times its kind's median and 20 us more is
 *    left out (the polls of the pairs kept stand for all), and the time
 *    the thread was off the CPU is given to the polls as their share of
 *    its time on it (the case's wall over its CPU time), as hprof's
 *    estimate does (lib/polls/poll_run.h): on this VM a thread may run a third
 *    of the time, off the CPU for milliseconds at once.
 * The truth's own uncertainty, the mean's standard error over the pairs,
 * is printed with it (error_ns, a poll).
 *
 * usage: poll_gaps MS TOL G...   (G among 0 200 500 1000 5000 50000 1000000)
 *
 * Prints per case `case G polls N truth_mpi_s X poll_ns P error_ns E wall_s W
 * cpu_s C pairs N kept K block K`, and check_csv.py expectations for its
 * rank: case_G's MPI_Test visits exact, and its MPI time within TOL (a
 * fraction) of the truth plus 1 ms a second of the case's wall time.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline long long now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static volatile double sink;

static __attribute__((noipa)) void compute(long long g)
{
    long long a = now();
    double x = sink;
    while (now() - a < g)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

static __attribute__((noipa)) int empty(MPI_Request *r, int *flag, MPI_Status *st)
{
    (void)r, (void)st;
    *flag = 0;
    return 0;
}

/* sqrt without libm (the tests link no more than MPI and hprof) */
static double square_root(double x)
{
    double r = x > 1 ? x : 1;
    for (int i = 0; i < 64 && x > 0; i++)
        r = 0.5 * (r + x / r);
    return x > 0 ? r : 0;
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

static int rank;
static double tol;
#define MAX_PAIRS (1 << 20)
static long long with_polls[MAX_PAIRS], without[MAX_PAIRS]; /* each pair's two blocks' sums of d */

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* iterations a block: about 20 us of loop */
static long block_iterations(long long g)
{
    long k = (long)(20000 / (g + 100));
    return k > 0 ? k : 1;
}

/* a block's sum over 16 times its kind's median and 20 us more: descheduled in
 * it (a poll after a millisecond of computation may take 20 us, cold) */
static long long lump_cap(const long long *v, long n)
{
    long long *sorted = malloc((size_t)n * sizeof *sorted);
    memcpy(sorted, v, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_ll);
    long long median = sorted[n / 2];
    free(sorted);
    return 16 * median + 20000;
}

/* the loop's polls' time from pairs of k-iteration blocks; polling: the
 * polling blocks' wall time, for the 1 ms a second */
static void report(int g, long pairs, long k, long long wall, long long polling, double cpu)
{
    long long cap_with = lump_cap(with_polls, pairs), cap_without = lump_cap(without, pairs);
    long kept = 0;
    double diff = 0, square = 0;
    for (long i = 0; i < pairs; i++)
        if (with_polls[i] <= cap_with && without[i] <= cap_without) {
            double x = (double)(with_polls[i] - without[i]);
            diff += x, square += x * x, kept++;
        }
    double poll_ns = kept ? diff / (double)kept / (double)k : 0;
    /* the mean's standard error, a poll: the truth's own uncertainty */
    double spread = kept > 1 ? square_root((square - diff * diff / (double)kept) / (double)(kept - 1)) : 0;
    double error_ns = kept > 1 ? spread / square_root((double)kept) / (double)k : 0;
    double w = (double)wall * 1e-9, pw = (double)polling * 1e-9, stretch = cpu > 0 && w > cpu ? w / cpu : 1;
    long polls = pairs * k;
    double truth = poll_ns * 1e-9 * (double)polls * stretch;
    printf("case %d polls %ld truth_mpi_s %.6f poll_ns %.2f error_ns %.2f", g, polls, truth, poll_ns,
           error_ns);
    printf(" wall_s %.6f polling_s %.6f cpu_s %.6f pairs %ld kept %ld block %ld\n", w, pw, cpu, pairs, kept,
           k);
    printf("case_%d\tglob:*;case_%d;MPI_Test\t%d\tvisits\t==\t%ld\n", g, g, rank, polls);
    printf("case_%d_time\tglob:*;case_%d;MPI_Test\t%d\tmpi_time\t>=\t%.6f\n", g, g, rank,
           truth * (1 - tol) - 0.001 * pw);
    printf("case_%d_time\tglob:*;case_%d;MPI_Test\t%d\tmpi_time\t<=\t%.6f\n", g, g, rank,
           truth * (1 + tol) + 0.001 * pw);
    fflush(stdout);
}

/* k iterations, the call f timed around: its sum of d */
#define TIMED_BLOCK(sum, k, G, f)             \
    do {                                      \
        for (long i = 0; i < (k); i++) {      \
            long long t0 = now();             \
            f(&rq, &flag, MPI_STATUS_IGNORE); \
            sum += now() - t0;                \
            compute(G);                       \
        }                                     \
    } while (0)

#define CASE(G)                                                              \
    static __attribute__((noipa)) void case_##G(long ms)                     \
    {                                                                        \
        MPI_Request rq;                                                      \
        int buf = 0, flag = 0, one = 1;                                      \
        MPI_Irecv(&buf, 1, MPI_INT, 0, 7, MPI_COMM_SELF, &rq);               \
        long k = block_iterations(G), pairs = 0;                             \
        double cpu0 = cpu_s();                                               \
        long long start = now(), t, polling = 0;                             \
        do {                                                                 \
            long long polled = 0, empty_sum = 0;                             \
            long long p0 = 0, p1 = 0;                                        \
            if (pairs & 1) {                                                 \
                p0 = now();                                                  \
                TIMED_BLOCK(polled, k, G, MPI_Test);                         \
                p1 = now();                                                  \
                TIMED_BLOCK(empty_sum, k, G, empty);                         \
            } else {                                                         \
                TIMED_BLOCK(empty_sum, k, G, empty);                         \
                p0 = now();                                                  \
                TIMED_BLOCK(polled, k, G, MPI_Test);                         \
                p1 = now();                                                  \
            }                                                                \
            polling += p1 - p0;                                              \
            with_polls[pairs] = polled, without[pairs] = empty_sum, pairs++; \
            t = now();                                                       \
        } while (t - start < ms * 1000000LL && pairs < MAX_PAIRS);           \
        double cpu = cpu_s() - cpu0;                                         \
        MPI_Send(&one, 1, MPI_INT, 0, 7, MPI_COMM_SELF);                     \
        MPI_Wait(&rq, MPI_STATUS_IGNORE);                                    \
        report(G, pairs, k, t - start, polling, cpu);                        \
    }
/* macro calls that define functions, one line */
/* clang-format off */
CASE(0) CASE(200) CASE(500) CASE(1000) CASE(5000) CASE(50000) CASE(1000000)

int main(int argc, char **argv)
/* clang-format on */
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long ms = argc > 1 ? atol(argv[1]) : 300;
    tol = argc > 2 ? atof(argv[2]) : 0.05;
    for (int i = 3; i < argc; i++) {
        switch (atoi(argv[i])) {
        case 0: case_0(ms); break;
        case 200: case_200(ms); break;
        case 500: case_500(ms); break;
        case 1000: case_1000(ms); break;
        case 5000: case_5000(ms); break;
        case 50000: case_50000(ms); break;
        case 1000000: case_1000000(ms); break;
        default: fprintf(stderr, "poll_gaps: no case %s\n", argv[i]); break;
        }
    }
    MPI_Finalize();
    return 0;
}
