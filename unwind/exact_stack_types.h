/*
 * exact_stack_types.h - the data of one thread's exactly measured calls
 * under way (exact_stack.h has what is done with it): apart, so that a
 * thread's unwinding state (thunk_stack.h) holds it without the functions,
 * which work on that state in turn.
 */
#ifndef HPROF_EXACT_STACK_TYPES_H
#define HPROF_EXACT_STACK_TYPES_H

#include <stdint.h>

#include "core/cct.h"

/* 64 bytes (aligned so): an entry's index is a shift. */
typedef struct exact_entry {
    uint64_t *slot;    /* the function's return-address slot */
    uint64_t ra;       /* the return address it held */
    uint64_t t0;       /* the clock's stamp at the entry (exact_stamp_now) */
    uint64_t inner_ns; /* time of the exact calls it made (closed ones) */
    cct_node *node;    /* counts the call's time; NULL: nothing to count */
    int32_t armed;     /* EXACT_ARMED: the slot holds the exit thunk */
    uint32_t fn;       /* the function's id (lib/exact) */
    uint32_t site;     /* the node of the path down to its call site (CCT_NONE: none) */
    int32_t depth;     /* that frame's depth in the thunk stack, -1: not known */
} __attribute__((aligned(64))) exact_entry;

/* An entry's slot holds the exit thunk (armed), or its return address
 * again: for a walk of the program's (an exception, backtrace()) until
 * rearmed, or for the duration of hprof's own libunwind walk. */
enum {
    EXACT_DISARMED = 0,
    EXACT_ARMED = 1,
    EXACT_OWN_WALK = 2
};

/* An activation closed while its slot still held the exit thunk: its
 * frame was taken for gone (a later call's slot lay above it), but may be
 * live on a part of the stack the thread switched away from (a coroutine
 * whose stack lies on the thread's own). Its return, if it comes, goes to
 * ra. */
typedef struct exact_orphan {
    uint64_t *slot;
    uint64_t ra;
} exact_orphan;

#define EXACT_ORPHANS 32

typedef struct exact_stack {
    exact_entry *e; /* cap entries, mapped on first use; NULL before */
    uint32_t top, cap;
    volatile int busy;                  /* an entry or exit is under way on this thread */
    int disarmed;                       /* entries EXACT_DISARMED */
    uint64_t stack_lo, stack_hi;        /* the thread's own stack (hi 0: unknown) */
    uint64_t full;                      /* calls not measured: the stack was full */
    uint64_t abandoned;                 /* activations left without their return */
    exact_orphan orphan[EXACT_ORPHANS]; /* oldest first */
    uint32_t norphans;
} exact_stack;

#endif
