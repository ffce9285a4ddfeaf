/*
 * epi_spin(n): spins n times in its own epilogue, after popping the rbx
 * and rbp it saved, where GCC's CFI still says "saved at CFA-n" (it emits
 * no restore for a pop): a sample there finds the saved rbp below rsp
 * (unwind/frame_walk.c, RED_ZONE). rbp is a scratch register here, not a
 * frame pointer, so its value is the caller's only after the pop.
 */
        .text
        .globl  epi_spin
        .type   epi_spin, @function
epi_spin:
        .cfi_startproc
        pushq   %rbx
        .cfi_def_cfa_offset 16
        .cfi_offset rbx, -16
        pushq   %rbp
        .cfi_def_cfa_offset 24
        .cfi_offset rbp, -24
        movq    %rdi, %rcx
        movq    %rdi, %rbx
        leaq    1(%rdi), %rbp       /* clobbered: the caller's rbp is on the stack */
        popq    %rbp
        .cfi_def_cfa_offset 16
        popq    %rbx
        .cfi_def_cfa_offset 8
1:      decq    %rcx                /* the spin: both saved registers popped */
        jnz     1b
        movq    %rdi, %rax
        ret
        .cfi_endproc
        .size   epi_spin, .-epi_spin
        .section .note.GNU-stack,"",@progbits
