/*
 * switch_code.h - the C library's functions that switch stacks part-way
 * through (swapcontext, setcontext). Between their load of the other
 * context's stack pointer and their return, a walk reads the new stack by
 * the old function's CFI. A sample there whose walk fails is taken as one
 * inside hprof's own code, not as a failed walk: dropped, its time left
 * to the next interval. Samples elsewhere in them (most of their time is
 * the signal mask's system call) walk as any. The interposers
 * (lib/interpose/unwinders.c) add both once, before any sample;
 * switch_code_at is async-signal-safe.
 */
#ifndef HPROF_SWITCH_CODE_H
#define HPROF_SWITCH_CODE_H

#include <stdint.h>

/* The function that starts at fn, its extent from its symbol (dladdr1);
 * nothing where that is unknown or SWITCH_CODE_MAX are known already. */
#define SWITCH_CODE_MAX 4
void switch_code_add(const void *fn);

int switch_code_at(uint64_t pc);

#endif
