/*
 * poll_step.c - where a miss-bound polling loop stops overlapping its
 * misses (bench/run.py section 1, LD_PRELOAD, built with -DEXTRA=K).
 *
 * The least a poll wrapper that sees the poll's result can do: keep its
 * thread's counter across a PMPI_Testany call (not a jump into it, as
 * bench/interpose_floor.c) and count the poll after it when it completed
 * nothing. EXTRA=K adds K register adds before the call: instructions that
 * touch no memory and that nothing waits for. In `callcost mempolls` (a
 * poll, then a random update of a 64 MiB table) the core overlaps the
 * misses of consecutive iterations while an iteration is short enough;
 * past a few instructions more it no longer does, and the iteration jumps
 * by a large part of a miss at once: that step is what any exact poll
 * (thread, call path checked, result seen, count) pays here, whatever its
 * length. hprof's lean poll path (wrappers/README.md) is past it.
 */
#include <mpi.h>

#ifndef EXTRA
#define EXTRA 0
#endif

#define STR_(x) #x
#define STR(x) STR_(x)

static __thread unsigned long polls __attribute__((tls_model("initial-exec")));

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    unsigned long *counter = &polls;
    __asm__ volatile(".rept " STR(EXTRA) "\n add $1, %%r11\n .endr" ::: "r11");
    int rc = PMPI_Testany(count, requests, index, flag, status);
    if (rc == MPI_SUCCESS && (*flag == 0 || *index == MPI_UNDEFINED))
        ++*counter;
    return rc;
}
