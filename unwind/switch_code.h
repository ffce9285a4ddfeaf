/*
 * switch_code.h - code that moves the stack pointer part-way through: the
 * C library's functions that switch stacks (swapcontext, setcontext) and
 * the exception unwinder's module (libgcc_s: its last step loads a landing
 * pad's registers and stack pointer). Between such a load and the jump, a
 * walk reads the new stack by the old function's CFI. A sample there whose
 * own walk fails is taken as one inside hprof's own code, not as a failed
 * walk: dropped, its time left to the next interval; libunwind is not
 * tried there (its walk from a sample in the unwinder's last step read an
 * unmapped address and crashed the program). Samples elsewhere in them
 * (most of the context functions' time is the signal mask's system call)
 * walk as any. The interposers (lib/interpose/unwinders.c) add them once,
 * before any sample; switch_code_at is async-signal-safe.
 */
#ifndef HPROF_SWITCH_CODE_H
#define HPROF_SWITCH_CODE_H

#include <stdint.h>

/* The function that starts at fn, its extent from its symbol (dladdr1);
 * nothing where that is unknown or SWITCH_CODE_MAX are known already. */
#define SWITCH_CODE_MAX 4
void switch_code_add(const void *fn);

/* The executable segment of the module that holds address a; nothing
 * where that is unknown or SWITCH_CODE_MAX are known already. */
void switch_code_add_module(const void *a);

int switch_code_at(uint64_t pc);

#endif
