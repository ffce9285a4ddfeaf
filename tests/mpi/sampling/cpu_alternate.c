/*
 * cpu_alternate.c - computation and MPI calls in turn, on the CPU clock
 * (tests/mpi/sampling_cpu_clock.sh, issue 30 point 11).
 *
 * Ranks 0 and 1 take turns: rank 0 computes CHUNK_US in comp() while rank
 * 1 waits for it in MPI_Recv, then the other way round, ROUNDS times; so
 * each rank spends about as long in comp() as in MPI calls that spin.
 * comp() measures its own CPU time with clock_gettime(CLOCK_THREAD_CPUTIME_ID)
 * at its entry and its end. One read of that clock is a system call here
 * (0.3-1.7 us on these VMs) and only its part up to the reading is seen by
 * the reading: the part of the first read before it and of the second
 * after it, one read's cost in all, runs in comp() unseen. So the truth
 * adds, each call, the mean of its two reads' costs as timed in place (by
 * CLOCK_MONOTONIC around each); a read that took more than four times the
 * median of batches of back-to-back reads, costed before MPI_Init, was
 * descheduled in and counts that median. In place, after 20 us of
 * computation or an MPI call, a read costs more than back to back (0.28-
 * 0.74 us against 0.22-0.35 on an Intel Xeon VM, family 6 model 207):
 * costed back to back, the truth was 0.5-1.5% low.
 *
 * Prints check_csv.py expectations for comp()'s inclusive computation time
 * on each rank: within TOL below and TOL_ABOVE above the truth, and two
 * sampling intervals (HPROF_SAMPLING_CLOCK=cpu, HPROF_SAMPLING_HZ), and
 * `truth RANK SECONDS READ_US (back to back READ_US)` lines.
 *
 * usage: cpu_alternate [ROUNDS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHUNK_US 20
#define TOL 0.04
/* Above the truth, 6%: hprof reads comp() up to 3% high in quiet runs on
 * an Intel Xeon VM (family 6, model 207), at 100 and at 1000 Hz (1-4%
 * against the truth costed back to back on an AMD EPYC VM, family 26), and
 * more under make check's load. It grows with the MPI calls, not the
 * samples (100 us chunks: +0.4%): hprof's CPU time of a call falls
 * 0.25-0.4 us short of what the program reads around it, of which hprof's
 * code outside its two reads is some 60-110 ns; the rest is not found.
 * The bug this guards read +9-14%. */
#define TOL_ABOVE 0.06

static double clock_s(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double comp_cpu, reads_unseen, read_median;
static volatile double sink;

/* A reading of the thread's CPU clock, and in *cost that read's cost in
 * place (a descheduled read: the median) */
static double timed_cpu_read(double *cost)
{
    double before = clock_s(CLOCK_MONOTONIC), cpu = clock_s(CLOCK_THREAD_CPUTIME_ID);
    double took = clock_s(CLOCK_MONOTONIC) - before;
    *cost = took <= 4 * read_median ? took : read_median;
    return cpu;
}

static __attribute__((noipa)) void comp(void)
{
    double cost0, cost1;
    double c0 = timed_cpu_read(&cost0), w0 = clock_s(CLOCK_MONOTONIC);
    double x = sink;
    while (clock_s(CLOCK_MONOTONIC) - w0 < CHUNK_US * 1e-6)
        x = x * 1.0000001 + 1e-9;
    sink = x;
    comp_cpu += timed_cpu_read(&cost1) - c0;
    reads_unseen += (cost0 + cost1) / 2;
}

/* one read of the thread's CPU clock, in CPU seconds: from one reading to
 * the next, the median of seven batches of eight */
static double read_cost(void)
{
    double per[7];
    for (int b = 0; b < 7; b++) {
        double first = clock_s(CLOCK_THREAD_CPUTIME_ID), last = first;
        for (int i = 0; i < 8; i++)
            last = clock_s(CLOCK_THREAD_CPUTIME_ID);
        per[b] = (last - first) / 8;
    }
    for (int i = 1; i < 7; i++)
        for (int j = i; j > 0 && per[j] < per[j - 1]; j--) {
            double x = per[j];
            per[j] = per[j - 1];
            per[j - 1] = x;
        }
    return per[3];
}

int main(int argc, char **argv)
{
    int rank, size, token = 0;
    long rounds = argc > 1 ? atol(argv[1]) : 20000;
    read_median = read_cost();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank < 2 && size >= 2) {
        int other = 1 - rank;
        for (long i = 0; i < rounds; i++) {
            if (rank == 0) {
                comp();
                MPI_Send(&token, 1, MPI_INT, other, 0, MPI_COMM_WORLD);
                MPI_Recv(&token, 1, MPI_INT, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&token, 1, MPI_INT, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                comp();
                MPI_Send(&token, 1, MPI_INT, other, 0, MPI_COMM_WORLD);
            }
        }
    }
    double truth = comp_cpu + reads_unseen;
    /* Two samples' intervals: a sample that lands outside comp() (in
     * main's loop between the calls, in a PLT entry) takes its interval,
     * mostly comp()'s computation, there (45 samples at 100 Hz here: one
     * such is 2%, as much again by chance). Below, four: under load (make
     * check runs both MPIs side by side) most samples land in MPI, and
     * the one counted after a run of them carries the whole run's
     * computation. The bug this guards (+9-14%) is above. */
    const char *hz_text = getenv("HPROF_SAMPLING_HZ");
    double hz = hz_text ? atof(hz_text) : 0, slack = hz > 0 ? 2.0 / hz : 0;
    for (int r = 0; r < 2 && r < size; r++) { /* in rank order: the launcher may splice lines */
        MPI_Barrier(MPI_COMM_WORLD);
        if (r != rank)
            continue;
        printf("truth %d %.6f %.3f (back to back %.3f)\n", rank, truth,
               rounds > 0 ? reads_unseen / (double)rounds * 1e6 : 0.0, read_median * 1e6);
        printf("comp_time\tglob:*;comp\t%d\tcomp_time@incl\t>=\t%.6f\n", rank, truth * (1 - TOL) - 2 * slack);
        printf("comp_time\tglob:*;comp\t%d\tcomp_time@incl\t<=\t%.6f\n", rank,
               truth * (1 + TOL_ABOVE) + slack);
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
