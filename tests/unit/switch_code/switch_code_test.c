#define _GNU_SOURCE
/* switch_code_test.c - tests/unit/switch_code.sh */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

#include "unwind/switch_code.h"

static int failures;

static void check(const char *what, int ok)
{
    printf("%s - switch_code: %s\n", ok ? "ok" : "not ok", what);
    failures += !ok;
}

static size_t size_of(const void *fn)
{
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    return dladdr1(fn, &info, (void **)&sym, RTLD_DL_SYMENT) && sym ? sym->st_size : 0;
}

int main(void)
{
    const char *swap = dlsym(RTLD_DEFAULT, "swapcontext");
    const char *set = dlsym(RTLD_DEFAULT, "setcontext");
    const char *other = dlsym(RTLD_DEFAULT, "getcontext");
    size_t swap_size = size_of(swap), set_size = size_of(set);
    check("the C library's swapcontext and setcontext have a size", swap_size > 8 && set_size > 8);
    check("nothing is switch code before any is added", !switch_code_at((uint64_t)(uintptr_t)swap));
    switch_code_add(NULL);
    switch_code_add(swap + 1); /* inside a function, at no symbol's start */
    check("NULL and an address inside a function add nothing",
          !switch_code_at((uint64_t)(uintptr_t)swap + 1));
    switch_code_add(swap);
    switch_code_add(set);
    uint64_t s = (uint64_t)(uintptr_t)swap, t = (uint64_t)(uintptr_t)set;
    check("swapcontext's first and last byte", switch_code_at(s) && switch_code_at(s + swap_size - 1));
    check("setcontext's first and last byte", switch_code_at(t) && switch_code_at(t + set_size - 1));
    check("the bytes around them are not", !switch_code_at(s - 1) && !switch_code_at(s + swap_size) &&
                                               !switch_code_at(t - 1) && !switch_code_at(t + set_size));
    check("getcontext is not", !switch_code_at((uint64_t)(uintptr_t)other));
    switch_code_add_module((const void *)main);
    check("the program's own module adds nothing", !switch_code_at((uint64_t)(uintptr_t)main));
    void *gcc = dlopen("libgcc_s.so.1", RTLD_NOW);
    const char *raise_ = gcc ? dlsym(gcc, "_Unwind_RaiseException") : NULL;
    const char *resume = gcc ? dlsym(gcc, "_Unwind_Resume") : NULL;
    check("libgcc_s's unwinder is found", raise_ && resume);
    switch_code_add_module(raise_);
    check("the unwinder's module: _Unwind_RaiseException and _Unwind_Resume",
          raise_ && resume && switch_code_at((uint64_t)(uintptr_t)raise_) &&
              switch_code_at((uint64_t)(uintptr_t)resume));
    check("the C library's other code is not", !switch_code_at((uint64_t)(uintptr_t)other));
    for (int i = 0; i < SWITCH_CODE_MAX; i++)
        switch_code_add(other);
    check("no more than SWITCH_CODE_MAX: the first ones stay", switch_code_at(s) && switch_code_at(t));
    return failures != 0;
}
