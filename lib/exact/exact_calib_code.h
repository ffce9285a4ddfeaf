/*
 * exact_calib_code.h - the code exact_calib.c times (see there): a
 * thread's start routine, its loops, and the two functions they call,
 * all outside hprof_text (Makefile's OUTSIDE_TEXT), as a program's own
 * code is, so that their calls take the path a program's calls take (a
 * walk from the entry finds the call site once, the memo after).
 */
#ifndef HPROF_EXACT_CALIB_CODE_H
#define HPROF_EXACT_CALIB_CODE_H

#include <stdint.h>

unsigned exact_calib_measured(unsigned x);
unsigned exact_calib_plain(unsigned x);

typedef struct exact_calib_run {
    void (*setup)(struct exact_calib_run *);    /* on the thread, before the loops */
    void (*teardown)(struct exact_calib_run *); /* and after */
    void *ctx;
    unsigned calls, rounds;
    uint64_t measured_ns, plain_ns; /* out: the least CPU time of a loop of each */
} exact_calib_run;

/* The thread's start routine; arg: an exact_calib_run. */
void *exact_calib_thread(void *arg);

#endif
