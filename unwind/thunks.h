/*
 * thunks.h - the thunk stack's code (x86_64, thunks_x86_64.c): THUNK_COUNT
 * thunks of THUNK_SIZE bytes from hprof_thunks_start. Thunk i stands for
 * stack depth i: it sets the thread's top to i and jumps to ra[i] of the
 * thread's table (hprof_thunk_tab points at ra[0]; top is the word before).
 * It touches only r11 (free at a return), never rax, rdx, xmm0, xmm1.
 */
#ifndef HPROF_THUNKS_H
#define HPROF_THUNKS_H

#include <stdint.h>

#define THUNK_COUNT 512
#define THUNK_SIZE 32

extern const char hprof_thunks_start[] __attribute__((visibility("hidden")));
extern __thread uint64_t *hprof_thunk_tab __attribute__((tls_model("initial-exec"), visibility("hidden")));

#endif
