/*
 * thunks_x86_64.c - the thunk code (see thunks.h). Plain static code in
 * hprof's own text: every thread shares it and jumps through its own
 * table, so nothing is generated at run time.
 */
#if defined(__x86_64__)
#include "unwind/thunks.h"

/* The table the thunks jump through, set by thunk_stack.c for each
 * thread: here, with the code that reads it. */
__thread uint64_t *hprof_thunk_tab __attribute__((tls_model("initial-exec")));

__asm__(".text\n"
        ".p2align 5\n"
        ".globl hprof_thunks_start\n"
        ".hidden hprof_thunks_start\n"
        ".type hprof_thunks_start, @function\n"
        "hprof_thunks_start:\n"
        ".set hprof_thunk_i, 0\n"
        ".rept 512\n"
        "  .p2align 5\n"
        "  movq hprof_thunk_tab@gottpoff(%rip), %r11\n"
        "  movq %fs:(%r11), %r11\n"
        "  movq $hprof_thunk_i, -8(%r11)\n"
        "  incq -16(%r11)\n"
        "  jmp *8*hprof_thunk_i(%r11)\n"
        "  .set hprof_thunk_i, hprof_thunk_i + 1\n"
        ".endr\n"
        ".p2align 5\n"
        ".size hprof_thunks_start, . - hprof_thunks_start\n");

_Static_assert(THUNK_COUNT == 512 && THUNK_SIZE == 32, "thunks_x86_64.c: .rept and .p2align follow these");
#endif
