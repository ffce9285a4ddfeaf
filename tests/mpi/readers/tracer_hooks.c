/*
 * tracer_hooks.c - a -finstrument-functions tracer (as TAU, Extrae or a
 * home-made call logger have): each function's exit must report the call
 * site its entry reported (tests/mpi/return_readers.sh). Linked into the
 * program, or built as a library of its own (TRACER_REPORT then reports).
 */
#include <stdio.h>

#define NOI __attribute__((no_instrument_function))

static void *sites[1024];
static int depth;
static long calls, mismatches;

NOI void __cyg_profile_func_enter(void *fn, void *site)
{
    (void)fn;
    if (depth < 1024)
        sites[depth] = site;
    depth++;
    calls++;
}

NOI void __cyg_profile_func_exit(void *fn, void *site)
{
    (void)fn;
    depth--;
    if (depth < 1024 && sites[depth] != site)
        mismatches++;
}

NOI void tracer_report(void)
{
    printf("tracer: %ld calls, %ld exits whose call site differs from their entry's\n", calls, mismatches);
}
