#define _GNU_SOURCE
/*
 * return_readers.c - see return_readers.h. The executable's symbol tables
 * come from its file (libelf); a tracer in a library from the loader.
 */
#include "lib/lifecycle/return_readers.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "core/log.h"
#include "unwind/thunk_stack.h"

/* What the executable's tables say of the few names that matter. */
typedef struct exe_names {
    int has_symtab;       /* not stripped */
    int has_lsda;         /* .gcc_except_table: code that catches or cleans up exceptions */
    int defines_unwinder; /* _Unwind_RaiseException defined (any table) */
    int imports_unwinder; /* _Unwind_RaiseException or _Unwind_Resume undefined in .dynsym */
    int exports_cxx;      /* __gxx_personality_v0 defined in .dynsym */
    int defines_cyg_exit; /* __cyg_profile_func_exit defined (any table) */
} exe_names;

static int own_unwinder;

static void note_symbol(exe_names *e, const char *name, int defined, int dynamic)
{
    if (strcmp(name, "_Unwind_RaiseException") == 0) {
        if (defined)
            e->defines_unwinder = 1;
        else if (dynamic)
            e->imports_unwinder = 1;
    } else if (strcmp(name, "_Unwind_Resume") == 0) {
        if (!defined && dynamic)
            e->imports_unwinder = 1;
    } else if (strcmp(name, "__gxx_personality_v0") == 0) {
        if (defined && dynamic)
            e->exports_cxx = 1;
    } else if (strcmp(name, "__cyg_profile_func_exit") == 0) {
        if (defined)
            e->defines_cyg_exit = 1;
    }
}

static void read_table(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, exe_names *e)
{
    Elf_Data *d = elf_getdata(scn, NULL);
    if (!d || !sh->sh_entsize)
        return;
    size_t count = sh->sh_size / sh->sh_entsize;
    int dynamic = sh->sh_type == SHT_DYNSYM;
    for (size_t i = 1; i < count; i++) {
        GElf_Sym s;
        const char *name;
        if (gelf_getsym(d, (int)i, &s) && (name = elf_strptr(elf, sh->sh_link, s.st_name)) && name[0] == '_')
            note_symbol(e, name, s.st_shndx != SHN_UNDEF, dynamic);
    }
}

static void read_executable(exe_names *e)
{
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    elf_version(EV_CURRENT);
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    Elf_Scn *scn = NULL;
    size_t names = 0;
    if (elf && elf_getshdrstrndx(elf, &names) != 0)
        names = 0;
    while (elf && (scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            continue;
        const char *section = names ? elf_strptr(elf, names, sh.sh_name) : NULL;
        e->has_lsda |= section && strcmp(section, ".gcc_except_table") == 0;
        if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
            continue;
        e->has_symtab |= sh.sh_type == SHT_SYMTAB;
        read_table(elf, scn, &sh, e);
    }
    if (elf)
        elf_end(elf);
    close(fd);
}

/* address lies in the C library (found by a function only it defines). */
static int in_libc(const void *address)
{
    Dl_info mine, its;
    void *libc_fn = dlsym(RTLD_DEFAULT, "gnu_get_libc_version");
    return libc_fn && dladdr(libc_fn, &mine) && dladdr(address, &its) && mine.dli_fbase == its.dli_fbase;
}

/* Where __cyg_profile_func_exit resolves to outside the C library (whose
 * own does nothing): its module's name, else NULL. */
static const char *tracer_library(void)
{
    Dl_info info;
    void *exit_hook = dlsym(RTLD_DEFAULT, "__cyg_profile_func_exit");
    if (!exit_hook || in_libc(exit_hook) || !dladdr(exit_hook, &info) || !info.dli_fname)
        return NULL;
    const char *base = strrchr(info.dli_fname, '/');
    return base ? base + 1 : info.dli_fname;
}

/* hprof linked into the executable (libhprof.a): the unwinder's names the
 * executable defines are hprof's interposers, and an unwinder of its own
 * could not be linked beside them (the names would clash). */
static int hprof_in_executable(void)
{
    Dl_info mine, exe;
    void *entry = (void *)getauxval(AT_ENTRY);
    return entry && dladdr((void *)return_readers_check, &mine) && dladdr(entry, &exe) &&
           mine.dli_fbase == exe.dli_fbase;
}

static const char *exe_name(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    buf[n > 0 ? n : 0] = '\0';
    const char *base = strrchr(buf, '/');
    return base ? base + 1 : buf;
}

void return_readers_check(void)
{
    exe_names e = { 0 };
    char path[4096];
    read_executable(&e); /* unreadable: nothing found in it */
    /* stripped: C++ code (its runtime exported, or exception tables) that
     * imports no unwinder has one of its own */
    own_unwinder =
        !hprof_in_executable() &&
        (e.defines_unwinder || (!e.has_symtab && (e.exports_cxx || e.has_lsda) && !e.imports_unwinder));
    if (own_unwinder) {
        if (uw_thunks_forbid())
            hprof_say("%s has its own unwinder (the C++ runtime linked statically), which hprof cannot make "
                      "walk through its return-address thunks: they are off (as HPROF_THUNKS=0)",
                      exe_name(path, sizeof path));
        return;
    }
    const char *tracer = e.defines_cyg_exit ? exe_name(path, sizeof path) : tracer_library();
    if (tracer && !getenv("HPROF_THUNKS") && uw_thunks_forbid())
        hprof_say("%s has a -finstrument-functions tracer (__cyg_profile_func_exit), which reads the return "
                  "addresses hprof's thunks replace: they are off (as HPROF_THUNKS=0; HPROF_THUNKS=1 keeps "
                  "them)",
                  tracer);
}

int return_readers_own_unwinder(void)
{
    return own_unwinder;
}
