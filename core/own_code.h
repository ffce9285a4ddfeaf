/*
 * own_code.h - is an address inside hprof's own code? All runtime objects
 * have their .text renamed to hprof_text at build time (see the Makefile),
 * so the linker gathers them into one range, whether hprof is a shared
 * library or linked into the executable. A sample with any frame in that
 * range interrupted a wrapper or the runtime: it is inside MPI.
 */
#ifndef HPROF_OWN_CODE_H
#define HPROF_OWN_CODE_H

#include <stdint.h>

extern const char __start_hprof_text[] __attribute__((visibility("hidden")));
extern const char __stop_hprof_text[] __attribute__((visibility("hidden")));

static inline int own_code(uint64_t pc)
{
    return pc >= (uint64_t)(uintptr_t)__start_hprof_text && pc < (uint64_t)(uintptr_t)__stop_hprof_text;
}

#endif
