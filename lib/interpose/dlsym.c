#define _GNU_SOURCE
/*
 * dlsym.c - the program's dlsym, watched: see hprof_dlsym_watch
 * (interpose.h). x86_64.
 */
#if defined(__x86_64__)
#include <dlfcn.h>

#include "core/real_dl.h"
#include "lib/interpose/interpose.h"
#include "unwind/modules.h"

/* The real dlsym (libc since glibc 2.34, libdl before), and the switch;
 * read by the stub. */
static void *real_dlsym __attribute__((used));
static int watch_dlsym __attribute__((used));

void hprof_dlsym_watch(int on)
{
    __atomic_store_n(&watch_dlsym, on, __ATOMIC_RELEASE);
}

/* The stub's call, with its arguments saved: the real dlsym found, and
 * the record of loaded code refreshed where asked. */
static void __attribute__((used)) dlsym_prepare(void *handle)
{
    if (!__atomic_load_n(&real_dlsym, __ATOMIC_ACQUIRE))
        __atomic_store_n(&real_dlsym, (void *)hprof_loader_dlsym(), __ATOMIC_RELEASE);
    static __thread int looking; /* the hooks may call dlsym themselves */
    if (handle == RTLD_NEXT || looking || !__atomic_load_n(&watch_dlsym, __ATOMIC_ACQUIRE))
        return;
    looking = 1;
    modules_refresh();
    modules_settle(); /* a library another thread found is patched before the program calls it */
    looking = 0;
}

/* Jumps to the real dlsym with the caller's return address in place; a
 * call of dlsym_prepare first when it is not known yet, or when the
 * record of loaded code is watched. */
__asm__(".text\n"
        ".p2align 4\n"
        ".globl dlsym\n"
        ".type dlsym, @function\n"
        "dlsym:\n"
        "  movq real_dlsym(%rip), %r11\n"
        "  testq %r11, %r11\n"
        "  jz 1f\n"
        "  cmpl $0, watch_dlsym(%rip)\n"
        "  jne 1f\n"
        "  jmp *%r11\n"
        "1:\n"
        "  pushq %rdi\n"
        "  pushq %rsi\n"
        "  subq $8, %rsp\n" /* 16-byte aligned at the call */
        "  call dlsym_prepare\n"
        "  addq $8, %rsp\n"
        "  popq %rsi\n"
        "  popq %rdi\n"
        "  movq real_dlsym(%rip), %r11\n"
        "  testq %r11, %r11\n"
        "  jz 2f\n"
        "  jmp *%r11\n"
        "2:\n"
        "  xorl %eax, %eax\n" /* no dlsym below: cannot happen with glibc */
        "  ret\n"
        ".size dlsym, . - dlsym\n");
#endif
