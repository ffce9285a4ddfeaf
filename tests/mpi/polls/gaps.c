/*
 * gaps.c - a polling loop with computation between its polls
 * (tests/mpi/polls_loops.sh): GAPS times (spin GAP_US, MPI_Iprobe for a
 * message nobody sends) from one frame. hprof times polls in a loop from
 * the previous poll's end only while the code between them is short
 * (lib/measure.c); here it is not, so the loop's MPI time must stay a
 * small part of its computation. Prints check_csv.py expectations: exact
 * visits, and MPI time at most a quarter of the measured spin time.
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#define GAPS 300
#define GAP_US 100

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double spun;

static void spin_us(long us)
{
    double a = now(), b;
    do
        b = now();
    while (b - a < (double)us * 1e-6);
    spun += b - a;
}

static __attribute__((noinline)) void gap_loop(void)
{
    for (int i = 0; i < GAPS; i++) {
        int flag = 0;
        spin_us(GAP_US);
        MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    gap_loop();
    /* in rank order: the launcher may splice lines the ranks write at once */
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int r = 0; r < size; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (r != rank)
            continue;
        printf("gaps\tglob:*;gap_loop;MPI_Iprobe\t%d\tvisits\t==\t%d\n", rank, GAPS);
        printf("gaps_time\tglob:*;gap_loop;MPI_Iprobe\t%d\ttime\t<=\t%.6f\n", rank, spun / 4);
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
