/*
 * timed_call.h - a test program's clock around a call of a function measured
 * exactly, and what that clock cannot vouch for. The span between the
 * program's clock read and hprof's entry read (and between the exit read
 * and the program's) is outside the function: where the thread was
 * descheduled there, for a whole time slice of another process on a loaded
 * machine, the program's span exceeds the exact time by that slice. A call
 * during which the thread was switched out (its context switches counted
 * by the kernel, getrusage) is such a span's possible home: its whole
 * duration is slack, by which the exact time may fall short.
 */
#ifndef TIMED_CALL_H
#define TIMED_CALL_H

#include <mpi.h>
#include <sys/resource.h>

typedef struct timed_span {
    double spent, slack;
} timed_span;

static long timed_switches(void)
{
    struct rusage u;
    getrusage(RUSAGE_THREAD, &u);
    return u.ru_nvcsw + u.ru_nivcsw;
}

/* Opens a call's span: returns its start; *switches, the count then. */
static double timed_begin(long *switches)
{
    *switches = timed_switches();
    return MPI_Wtime();
}

static void timed_end(timed_span *s, double t0, long switches)
{
    double d = MPI_Wtime() - t0;
    s->spent += d;
    if (timed_switches() != switches)
        s->slack += d;
}

#endif
