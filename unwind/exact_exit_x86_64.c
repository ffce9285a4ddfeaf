/*
 * exact_exit_x86_64.c - the exit thunk of exactly measured calls (see
 * exact_stack.h). A measured function returns here instead of to its
 * caller: rsp is its slot + 8, its return values are in rax, rdx, xmm0,
 * xmm1 (and st0, st1). exact_stack_leave (general registers only) pops the
 * activation and gives the original return address, which the thunk jumps
 * returns to with rsp as the return left it. It touches r11 (free at a return),
 * and the caller-saved registers no return value lives in.
 */
#if defined(__x86_64__)
__asm__(".text\n"
        ".p2align 4\n"
        ".globl hprof_exact_exit\n"
        ".hidden hprof_exact_exit\n"
        ".type hprof_exact_exit, @function\n"
        "hprof_exact_exit:\n"
        "  pushq %rax\n"
        "  pushq %rdx\n"
        "  leaq 16(%rsp), %rdi\n"   /* the sp after the return */
        "  call exact_stack_leave\n" /* rsp is 16-byte aligned here: the return left slot + 8 */
        "  movq %rax, %r11\n"
        "  popq %rdx\n"
        "  popq %rax\n"
        /* a return, not a jump: the trampoline left the caller's
         * return-stack entry on top (exact_entry.c), so it is predicted */
        "  pushq %r11\n"
        "  ret\n"
        ".size hprof_exact_exit, . - hprof_exact_exit\n");
#endif
