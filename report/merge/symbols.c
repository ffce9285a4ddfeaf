/*
 * symbols.c - libdwfl over the live process. Names are demangled with
 * __cxa_demangle when the process has libstdc++ loaded (any program with C++
 * code does), so the C runtime needs no C++ dependency.
 */
#define _GNU_SOURCE
#include "symbols.h"

#include <dlfcn.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hashmap.h"

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

struct symbols {
    Dwfl *dwfl;
    demangle_fn demangle;
    char **owned;      /* strings handed out, freed at close */
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

symbols *symbols_open(void)
{
    static char *debuginfo_path = NULL;
    static const Dwfl_Callbacks callbacks = {
        .find_elf = dwfl_linux_proc_find_elf,
        .find_debuginfo = dwfl_standard_find_debuginfo,
        .debuginfo_path = &debuginfo_path,
    };
    symbols *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->dwfl = dwfl_begin(&callbacks);
    if (s->dwfl) {
        if (dwfl_linux_proc_report(s->dwfl, getpid()) != 0) {
            dwfl_end(s->dwfl);
            s->dwfl = NULL;
        } else {
            dwfl_report_end(s->dwfl, NULL, NULL);
        }
    }
    s->demangle = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
    return s;
}

void symbols_close(symbols *s)
{
    if (!s)
        return;
    if (s->dwfl)
        dwfl_end(s->dwfl);
    for (size_t i = 0; i < s->nowned; i++)
        free(s->owned[i]);
    free(s->owned);
    free(s);
}

static const char *module_path(Dwfl_Module *mod)
{
    const char *mainfile = NULL;
    const char *name = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &mainfile, NULL);
    return mainfile ? mainfile : name ? name : "";
}

static void set_name(symbols *s, sym_info *info, const char *raw)
{
    /* Versioned symbols come as name@@VERSION or name@VERSION. */
    const char *at = strchr(raw, '@');
    if (at && at != raw)
        raw = keep(s, strndup(raw, (size_t)(at - raw)));
    info->name = raw;
    info->mangled = NULL;
    if (s->demangle && raw[0] == '_' && raw[1] == 'Z') {
        int status = -1;
        char *d = s->demangle(raw, NULL, NULL, &status);
        if (status == 0 && d) {
            info->name = keep(s, d);
            info->mangled = raw;
        } else {
            free(d);
        }
    }
}

/* Start of the function around pc from the call frame information, which
 * even stripped objects keep (an FDE covers one function), or pc itself. */
static uint64_t cfi_function_start(Dwfl_Module *mod, uint64_t pc)
{
    Dwarf_Addr bias = 0, start = 0, end = 0;
    Dwarf_CFI *cfi = mod ? dwfl_module_eh_cfi(mod, &bias) : NULL;
    Dwarf_Frame *frame = NULL;
    if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame) != 0)
        return pc;
    int ok = dwarf_frame_info(frame, &start, &end, NULL) >= 0;
    free(frame);
    return ok ? start + bias : pc;
}

/* A function without a symbol: named by its module and start offset
 * ("libstdc++.so.6+0xf2260"), so that every address in it is one region. */
static void set_unknown(symbols *s, sym_info *info, Dwfl_Module *mod, uint64_t pc, const char *module,
                        uint64_t base)
{
    char buf[512];
    const char *slash = strrchr(module, '/');
    info->start = cfi_function_start(mod, pc);
    snprintf(buf, sizeof buf, "%s+0x%llx", slash ? slash + 1 : module[0] ? module : "?",
             (unsigned long long)(info->start - base));
    info->name = keep(s, strdup(buf));
    info->mangled = NULL;
    info->module = module;
}

int symbols_function(symbols *s, uint64_t pc, sym_info *info)
{
    memset(info, 0, sizeof *info);
    info->line = -1;
    Dwfl_Module *mod = s->dwfl ? dwfl_addrmodule(s->dwfl, pc) : NULL;
    if (!mod) {
        set_unknown(s, info, NULL, pc, "", 0);
        return -1;
    }
    info->module = module_path(mod);
    GElf_Off offset = 0;
    GElf_Sym sym;
    const char *name = dwfl_module_addrinfo(mod, pc, &offset, &sym, NULL, NULL, NULL);
    if (!name) {
        Dwarf_Addr base = 0;
        dwfl_module_info(mod, NULL, &base, NULL, NULL, NULL, NULL, NULL);
        set_unknown(s, info, mod, pc, info->module, base);
        return 0;
    }
    info->start = pc - offset;
    set_name(s, info, name);
    symbols_line(s, info->start, &info->file, &info->line);
    return 0;
}

int symbols_line(symbols *s, uint64_t pc, const char **file, int *line)
{
    *file = NULL;
    *line = -1;
    Dwfl_Module *mod = s->dwfl ? dwfl_addrmodule(s->dwfl, pc) : NULL;
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
