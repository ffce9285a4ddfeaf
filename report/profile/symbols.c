/*
 * symbols.c - libdwfl over the live process. C++ names are demangled by
 * hprof's own demangler (core/demangle.h), libstdc++ loaded or not.
 */
#define _GNU_SOURCE
#include "report/profile/symbols.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "core/cct.h"
#include "core/config.h"
#include "core/demangle.h"
#include "core/hashmap.h"
#include "unwind/modules.h"

struct symbols {
    Dwfl *dwfl;      /* the modules loaded now */
    Dwfl **unloaded; /* per module id, made on first use: modules unloaded since */
    int nunloaded;
    char exe[4096]; /* the program's own file ("": unknown) */
    char **owned;   /* strings handed out, freed at close */
    size_t nowned, owned_cap;
};

static char *keep(symbols *s, char *str)
{
    if (!str)
        return NULL;
    if (s->nowned == s->owned_cap) {
        size_t cap = s->owned_cap ? s->owned_cap * 2 : 256;
        char **p = realloc(s->owned, cap * sizeof *p);
        if (!p) {
            free(str);
            return NULL;
        }
        s->owned = p;
        s->owned_cap = cap;
    }
    s->owned[s->nowned++] = str;
    return str;
}

/* A Dwfl of the live modules (id < 0) or of module id alone, from the
 * module record (unwind/modules.h): the loader's list, not
 * /proc/self/maps, where libelf's own mappings of ELF files look like
 * loaded objects. */
static Dwfl *modules_dwfl(int id)
{
    Dwfl *d = modules_dwfl_begin();
    if (!d)
        return NULL;
    dwfl_report_begin(d);
    if (modules_report(d, id) != 0 && id >= 0) {
        dwfl_end(d);
        return NULL;
    }
    dwfl_report_end(d, NULL, NULL);
    return d;
}

/* The Dwfl that resolves key (an address, or CCT_KEY_UNLOADED: then *pc
 * becomes the address and *tag its tag bits). */
static Dwfl *dwfl_of(symbols *s, uint64_t *pc, uint64_t *tag)
{
    *tag = 0;
    if (!CCT_KEY_IS_UNLOADED(*pc))
        return s->dwfl;
    int id = CCT_KEY_UNLOADED_ID(*pc);
    *tag = *pc & ~0xFFFFFFFFFFFFull;
    *pc = CCT_KEY_ADDRESS(*pc);
    if (id >= s->nunloaded) {
        int n = modules_count();
        Dwfl **u = id < n ? realloc(s->unloaded, (size_t)n * sizeof *u) : NULL;
        if (!u)
            return NULL;
        memset(u + s->nunloaded, 0, (size_t)(n - s->nunloaded) * sizeof *u);
        s->unloaded = u;
        s->nunloaded = n;
    }
    if (!s->unloaded[id])
        s->unloaded[id] = modules_dwfl(id);
    return s->unloaded[id];
}

symbols *symbols_open(void)
{
    symbols *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    modules_refresh();
    s->dwfl = modules_dwfl(-1);
    ssize_t n = readlink("/proc/self/exe", s->exe, sizeof s->exe - 1);
    s->exe[n > 0 ? n : 0] = '\0';
    return s;
}

void symbols_close(symbols *s)
{
    if (!s)
        return;
    if (s->dwfl)
        dwfl_end(s->dwfl);
    for (int i = 0; i < s->nunloaded; i++)
        if (s->unloaded[i])
            dwfl_end(s->unloaded[i]);
    free(s->unloaded);
    for (size_t i = 0; i < s->nowned; i++)
        free(s->owned[i]);
    free(s->owned);
    free(s);
}

/* The module's file as the profile names it: the same in every rank. */
static const char *module_path(Dwfl_Module *mod)
{
    const char *mainfile = NULL;
    const char *name = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &mainfile, NULL);
    return modules_shown_name(mainfile ? mainfile : name ? name : "");
}

static void set_name(symbols *s, sym_info *info, const char *raw)
{
    /* Versioned symbols come as name@@VERSION or name@VERSION. */
    const char *at = strchr(raw, '@');
    if (at && at != raw)
        raw = keep(s, strndup(raw, (size_t)(at - raw)));
    info->name = raw;
    info->mangled = NULL;
    char *d = hprof_demangle(raw);
    if (d) {
        info->name = keep(s, d);
        info->mangled = raw;
    }
}

/* Start of the FDE around pc: an FDE covers one whole function, and even
 * stripped objects keep them (.eh_frame). libdw's frame lookup only gives
 * the range of one CFI row (a part of a function), so the FDE comes from
 * libunwind's .eh_frame_hdr search. Returns 0 when no FDE covers pc. */
static uint64_t fde_start(uint64_t pc)
{
    unw_proc_info_t pi;
    memset(&pi, 0, sizeof pi);
    if (unw_get_proc_info_by_ip(unw_local_addr_space, (unw_word_t)pc, &pi, NULL) != 0)
        return 0;
    return pi.start_ip <= pc && pc < pi.end_ip ? (uint64_t)pi.start_ip : 0;
}

/* The nearest function symbol at or below pc in the module's .symtab or
 * .dynsym (or MiniDebugInfo's), whatever its size says; 0 if none. For code
 * that has no FDE: it at least groups a function's addresses. */
static uint64_t preceding_symbol(Dwfl_Module *mod, uint64_t pc)
{
    int n = mod ? dwfl_module_getsymtab(mod) : -1;
    uint64_t best = 0;
    for (int i = 1; i < n; i++) {
        GElf_Sym sym;
        GElf_Addr addr = 0;
        if (!dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL))
            continue;
        if (GELF_ST_TYPE(sym.st_info) == STT_FUNC && addr <= pc && addr > best)
            best = addr;
    }
    return best;
}

/* Where the function around pc starts: its FDE, else the nearest preceding
 * symbol, else pc itself. */
static uint64_t unknown_function_start(Dwfl_Module *mod, uint64_t pc)
{
    uint64_t start = fde_start(pc);
    if (!start)
        start = preceding_symbol(mod, pc);
    return start ? start : pc;
}

/* A function without a symbol: named by its module and start offset
 * ("libstdc++.so.6+0xf2260"), so that every address in it is one region. */
static void set_unknown(symbols *s, sym_info *info, Dwfl_Module *mod, uint64_t pc, const char *module,
                        uint64_t base)
{
    char buf[512];
    const char *slash = strrchr(module, '/');
    info->start = unknown_function_start(mod, pc);
    info->mangled = NULL;
    info->module = module;
    /* A stripped program's entry point has no name, but it is _start: the
     * start-up code that the call paths leave out. */
    if (info->start == (uint64_t)getauxval(AT_ENTRY)) {
        info->name = "_start";
        return;
    }
    snprintf(buf, sizeof buf, "%s+0x%llx",
             slash       ? slash + 1
             : module[0] ? module
                         : "?",
             (unsigned long long)(info->start - base));
    info->name = keep(s, strdup(buf));
}

static int function_in(symbols *s, Dwfl *dwfl, uint64_t pc, sym_info *info)
{
    memset(info, 0, sizeof *info);
    Dwfl_Module *mod = dwfl ? dwfl_addrmodule(dwfl, pc) : NULL;
    if (!mod) {
        set_unknown(s, info, NULL, pc, "", 0);
        return -1;
    }
    info->module = module_path(mod);
    GElf_Off offset = 0;
    GElf_Sym sym;
    const char *name = dwfl_module_addrinfo(mod, pc, &offset, &sym, NULL, NULL, NULL);
    if (!name) {
        /* Offsets are ELF addresses, as nm, objdump and addr2line show them. */
        Dwarf_Addr bias = 0;
        dwfl_module_getelf(mod, &bias);
        set_unknown(s, info, mod, pc, info->module, bias);
        return 0;
    }
    info->start = pc - offset;
    info->named = 1;
    set_name(s, info, name);
    return 0;
}

int symbols_address(symbols *s, uint64_t pc, char *buf, size_t len)
{
    uint64_t tag;
    Dwfl *dwfl = dwfl_of(s, &pc, &tag);
    Dwfl_Module *mod = dwfl ? dwfl_addrmodule(dwfl, pc) : NULL;
    Dwarf_Addr bias = 0;
    if (!mod || !dwfl_module_getelf(mod, &bias))
        return -1;
    const char *path = module_path(mod), *slash = strrchr(path, '/');
    snprintf(buf, len, "%s+0x%llx", slash ? slash + 1 : path, (unsigned long long)(pc - bias));
    return 0;
}

/* An address of code unloaded since it was recorded resolves in the module
 * that was mapped there then; the start keeps its tag, so that regions of
 * different modules at one address stay apart. */
int symbols_function(symbols *s, uint64_t pc, sym_info *info)
{
    uint64_t tag;
    Dwfl *dwfl = dwfl_of(s, &pc, &tag);
    int rc = function_in(s, dwfl, pc, info);
    if (tag && info->start)
        info->start |= tag;
    return rc;
}

/* Is the module a library of the system's (under /lib, /usr/lib, ...), not
 * the program itself? Their line tables come from debug packages
 * (libc6-dbg): large and compressed, ~50-90 ms of inflating a rank for
 * libc's, and what a profile of the program needs from them is the
 * function's name. */
static int system_library(const symbols *s, Dwfl_Module *mod)
{
    static const char *const dirs[] = { "/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/" };
    const char *path = module_path(mod);
    if (s->exe[0] && strcmp(path, s->exe) == 0)
        return 0;
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (strncmp(path, dirs[i], strlen(dirs[i])) == 0)
            return 1;
    return 0;
}

int symbols_line(symbols *s, uint64_t pc, const char **file, int *line)
{
    *file = NULL;
    *line = -1;
    uint64_t tag;
    Dwfl *dwfl = dwfl_of(s, &pc, &tag);
    Dwfl_Module *mod = dwfl ? dwfl_addrmodule(dwfl, pc) : NULL;
    if (mod && !hprof_config.system_lines && system_library(s, mod))
        return -1;
    Dwfl_Line *l = mod ? dwfl_module_getsrc(mod, pc) : NULL;
    if (!l)
        return -1;
    int lineno = -1;
    const char *src = dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL);
    if (!src)
        return -1;
    *file = src;
    *line = lineno;
    return 0;
}
