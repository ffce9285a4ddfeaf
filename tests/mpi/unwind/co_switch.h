/*
 * co_switch.h - a coroutine switch of the program's own, which hprof does
 * not see (as a coroutine library's): void co_switch(void **save_sp, void
 * *to_sp) pushes the callee-saved registers onto the stack, stores the
 * stack pointer in *save_sp, loads to_sp and pops the other context's.
 * x86_64. Included by one file of a program.
 */
#ifndef CO_SWITCH_H
#define CO_SWITCH_H

#ifdef __cplusplus
extern "C"
#endif
    void
    co_switch(void **save_sp, void *to_sp);

__asm__(".text\n"
        ".globl co_switch\n"
        ".type co_switch, @function\n"
        "co_switch:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  ret\n"
        ".size co_switch, . - co_switch\n");

#endif
