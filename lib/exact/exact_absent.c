/*
 * exact_absent.c - see exact_absent.h. Each module's file is opened once
 * per name: its symbol table (.symtab, else .dynsym) for a function of
 * that name, then, where one is found, its __patchable_function_entries
 * records (in memory, as the loader relocated them) for that function's
 * NOP area; where none is found in any module, each module's own DWARF for
 * a subprogram of that name with DW_AT_inline (the abstract instance of a
 * function the compiler inlined).
 */
#include "lib/exact/exact_absent.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/demangle.h"
#include "lib/exact/exact_select.h"
#include "lib/exact/exact_sites.h"
#include "unwind/modules.h"

#define SECTION "__patchable_function_entries"
#define MAX_BEFORE 64 /* as exact_sites.c: NOP bytes before an entry */

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* The identifier a C++ or Fortran symbol of name must contain: its last
 * component, without parameters ("ns::f(int)" -> "f"), into buf. */
static const char *identifier(const char *name, char *buf, size_t len)
{
    const char *start = name;
    for (const char *p = name; *p && *p != '('; p++)
        if (p[0] == ':' && p[1] == ':')
            start = p + 2;
    size_t n = strcspn(start, "(");
    n = n < len - 1 ? n : len - 1;
    memcpy(buf, start, n);
    buf[n] = '\0';
    return buf;
}

/* Symbol (or DWARF linkage name) sym, or a DWARF name without one, is a
 * function name asks for (demangled only where it can be one). */
static int matches(const char *sym, const char *plain, const char *name, const char *ident)
{
    if (!sym)
        return plain && exact_name_matches(&(exact_fn_info){ plain, NULL, NULL, NULL, 0, 0 }, name);
    if (strncmp(sym, "_Z", 2) != 0 || !strstr(sym, ident))
        return exact_name_matches(&(exact_fn_info){ sym, NULL, NULL, NULL, 0, 0 }, name);
    char *dem = hprof_demangle(sym);
    int yes =
        exact_name_matches(&(exact_fn_info){ dem ? dem : sym, dem ? sym : NULL, NULL, NULL, 0, 0 }, name);
    free(dem);
    return yes;
}

/* The section named name of elf, or NULL. */
static Elf_Scn *section(Elf *elf, const char *name, GElf_Shdr *sh)
{
    size_t shstrndx;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        return NULL;
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
        const char *n;
        if (gelf_getshdr(scn, sh) && (n = elf_strptr(elf, shstrndx, sh->sh_name)) && strcmp(n, name) == 0)
            return scn;
    }
    return NULL;
}

/* The address (file's) of a function symbol of elf that name asks for, or 0. */
static uint64_t find_symbol(Elf *elf, const char *name, const char *ident)
{
    Elf_Scn *tab = NULL, *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(elf, scn)))
        if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !tab)))
            tab = scn;
    Elf_Data *d = tab && gelf_getshdr(tab, &sh) ? elf_getdata(tab, NULL) : NULL;
    for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
        GElf_Sym s;
        const char *sym;
        if (gelf_getsym(d, (int)i, &s) && GELF_ST_TYPE(s.st_info) == STT_FUNC && s.st_shndx != SHN_UNDEF &&
            s.st_value && (sym = elf_strptr(elf, sh.sh_link, s.st_name)) && *sym &&
            matches(sym, NULL, name, ident))
            return s.st_value;
    }
    return 0;
}

/* Why function fn (run-time address) of module rec, whose file is elf,
 * has no usable NOP area; 0 where it has one after all. */
static int why_unpatchable(Elf *elf, const module_rec *rec, uint64_t fn, exact_absence *out)
{
    GElf_Shdr sh;
    if (!section(elf, SECTION, &sh) || !(sh.sh_flags & SHF_ALLOC)) {
        out->why = EXACT_ABSENT_MODULE_BARE;
        return 1;
    }
    const uint64_t *rec_at = (const uint64_t *)(uintptr_t)(rec->bias + sh.sh_addr);
    uint64_t area = 0; /* the function's: the nearest record at or before its entry */
    for (size_t i = 0; i < sh.sh_size / sizeof(uint64_t); i++)
        if (rec_at[i] <= fn && fn - rec_at[i] <= MAX_BEFORE && rec_at[i] >= rec->low && rec_at[i] > area)
            area = rec_at[i];
    exact_site s;
    if (!area || fn >= rec->high) {
        out->why = EXACT_ABSENT_OBJECT_BARE;
        return 1;
    }
    if (exact_site_at(fn, 0, "", &s) == 0) {
        free(s.name);
        return 0;
    }
    out->why = EXACT_ABSENT_UNFIT;
    exact_area_shape(area, fn, rec->high, &out->n, &out->m);
    return 1;
}

/* The DIE at off is declared in the scope path ("ns::Grid::": namespaces,
 * classes) under die. */
static int declared_in(Dwarf_Die *die, const char *path, Dwarf_Off off, int depth)
{
    Dwarf_Die child;
    const char *sep = strstr(path, "::");
    if (depth > 8 || dwarf_child(die, &child) != 0)
        return 0;
    do {
        const char *n;
        int tag = dwarf_tag(&child);
        if (!sep && dwarf_dieoffset(&child) == off)
            return 1;
        if (sep &&
            (tag == DW_TAG_namespace || tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
             tag == DW_TAG_union_type) &&
            (n = dwarf_diename(&child)) && strlen(n) == (size_t)(sep - path) &&
            strncmp(n, path, (size_t)(sep - path)) == 0 && declared_in(&child, sep + 2, off, depth + 1))
            return 1;
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

/* The abstract instance sub, named plain, declared (DW_AT_specification)
 * where name's scope says: name "ns::f", plain "f", declared in ns. */
static int qualified_match(Dwarf_Die *cu, Dwarf_Die *sub, const char *plain, const char *name,
                           const char *ident)
{
    Dwarf_Attribute a;
    Dwarf_Die decl;
    size_t scope = strlen(name) - strlen(strstr(name, ident) ? strstr(name, ident) : "");
    if (!plain || strcmp(plain, ident) != 0 || scope < 2 || strncmp(name + scope - 2, "::", 2) != 0 ||
        !dwarf_formref_die(dwarf_attr(sub, DW_AT_specification, &a), &decl))
        return 0;
    char path[512];
    snprintf(path, sizeof path, "%.*s", (int)scope, name); /* "ns::" */
    return declared_in(cu, path, dwarf_dieoffset(&decl), 0);
}

/* Some subprogram under die (a unit, a namespace: its names qualified
 * with prefix, "ns::") with DW_AT_inline (inlined, or declared inline
 * and inlined) is one name asks for. */
static int inlined_under(Dwarf_Die *cu, Dwarf_Die *die, const char *prefix, const char *name,
                         const char *ident, int depth)
{
    Dwarf_Die child;
    if (depth > 8 || dwarf_child(die, &child) != 0)
        return 0;
    do {
        int tag = dwarf_tag(&child);
        Dwarf_Attribute a;
        Dwarf_Word inl;
        if (tag == DW_TAG_namespace) {
            const char *ns = dwarf_diename(&child);
            char inner[512];
            snprintf(inner, sizeof inner, "%s%s::", prefix, ns ? ns : "(anonymous namespace)");
            if (inlined_under(cu, &child, inner, name, ident, depth + 1))
                return 1;
        }
        if (tag != DW_TAG_subprogram || !dwarf_attr(&child, DW_AT_inline, &a) ||
            dwarf_formudata(&a, &inl) != 0 || (inl != DW_INL_inlined && inl != DW_INL_declared_inlined))
            continue;
        const char *linkage = dwarf_formstring(dwarf_attr_integrate(&child, DW_AT_linkage_name, &a));
        if (!linkage)
            linkage = dwarf_formstring(dwarf_attr_integrate(&child, DW_AT_MIPS_linkage_name, &a));
        const char *plain = dwarf_formstring(dwarf_attr_integrate(&child, DW_AT_name, &a));
        char qualified[512];
        snprintf(qualified, sizeof qualified, "%s%s", prefix, plain ? plain : "");
        if ((linkage && matches(linkage, NULL, name, ident)) ||
            (plain && matches(NULL, plain, name, ident)) ||
            (plain && prefix[0] && matches(NULL, qualified, name, ident)) ||
            qualified_match(cu, &child, plain, name, ident))
            return 1;
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

/* The DWARF in elf's own sections names a function name asks for inlined. */
static int dwarf_inlined(Elf *elf, const char *name, const char *ident)
{
    GElf_Shdr sh;
    if (!section(elf, ".debug_info", &sh))
        return 0;
    Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
    int found = 0;
    Dwarf_Off off = 0, next;
    size_t hsize;
    while (dw && !found && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        Dwarf_Die cu;
        if (dwarf_offdie(dw, off + hsize, &cu))
            found = inlined_under(&cu, &cu, "", name, ident, 0);
        off = next;
    }
    if (dw)
        dwarf_end(dw);
    return found;
}

/* Opens module id's file: its ELF, and the record; NULL when it has none. */
static Elf *open_module(int id, module_rec *rec, int *fd)
{
    if (modules_get(id, rec) != 0 || !rec->live || !rec->path || rec->path[0] != '/')
        return NULL;
    if ((*fd = open(rec->path, O_RDONLY | O_CLOEXEC)) < 0)
        return NULL;
    Elf *elf = elf_begin(*fd, ELF_C_READ, NULL);
    if (elf && elf_kind(elf) == ELF_K_ELF)
        return elf;
    if (elf)
        elf_end(elf);
    close(*fd);
    return NULL;
}

void exact_absent_explain(const char *name, exact_absence *out)
{
    char ident[256];
    identifier(name, ident, sizeof ident);
    memset(out, 0, sizeof *out);
    out->why = EXACT_ABSENT_NOWHERE;
    elf_version(EV_CURRENT);
    int n = modules_count(), found = 0;
    for (int pass = 0; pass < 2 && !found; pass++) { /* symbols first, then DWARF */
        for (int id = 0; id < n && !found; id++) {
            module_rec rec;
            int fd;
            Elf *elf = open_module(id, &rec, &fd);
            if (!elf)
                continue;
            exact_absence a = { 0 };
            uint64_t fn = pass == 0 ? find_symbol(elf, name, ident) : 0;
            if (pass == 0 && fn && why_unpatchable(elf, &rec, rec.bias + fn, &a))
                found = 1;
            else if (pass == 1 && dwarf_inlined(elf, name, ident))
                found = 1, a.why = EXACT_ABSENT_INLINED;
            if (found) {
                *out = a;
                snprintf(out->module, sizeof out->module, "%s", base_name(rec.path));
            }
            elf_end(elf);
            close(fd);
        }
    }
}

const char *exact_absence_line(const exact_absence *a, char *buf, size_t len)
{
    switch (a->why) {
    case EXACT_ABSENT_INLINED:
        snprintf(buf, len,
                 "is inlined everywhere: no out-of-line copy to measure (%s's debug information names it "
                 "inlined)",
                 a->module);
        break;
    case EXACT_ABSENT_MODULE_BARE:
        snprintf(buf, len,
                 "has no NOP area: %s was built without -fpatchable-function-entry (build it with "
                 "-fpatchable-function-entry=18,16)",
                 a->module);
        break;
    case EXACT_ABSENT_OBJECT_BARE:
        snprintf(buf, len,
                 "has no NOP area: %s has some, but its object file was built without "
                 "-fpatchable-function-entry (build it with -fpatchable-function-entry=18,16)",
                 a->module);
        break;
    case EXACT_ABSENT_UNFIT:
        if (a->m >= 5 && a->n - a->m >= 2)
            snprintf(buf, len,
                     "has a NOP area hprof cannot patch: its entry's NOP bytes cross a cache line (%s, "
                     "-fpatchable-function-entry=%d,%d)",
                     a->module, a->n, a->m);
        else
            snprintf(buf, len,
                     "has a NOP area hprof cannot use: %s was built with -fpatchable-function-entry=%d,%d "
                     "(hprof needs N,M with M >= 5 and N - M >= 2: build it with "
                     "-fpatchable-function-entry=18,16)",
                     a->module, a->n, a->m);
        break;
    default:
        snprintf(buf, len,
                 "is not in the program: no module loaded has a function symbol of that name, nor debug "
                 "information that names it inlined");
    }
    return buf;
}

const char *exact_absence_short(const exact_absence *a, char *buf, size_t len)
{
    switch (a->why) {
    case EXACT_ABSENT_INLINED: snprintf(buf, len, "inlined everywhere"); break;
    case EXACT_ABSENT_MODULE_BARE:
    case EXACT_ABSENT_OBJECT_BARE:
        snprintf(buf, len, "no NOP area: built without -fpatchable-function-entry");
        break;
    case EXACT_ABSENT_UNFIT:
        snprintf(buf, len, "NOP area unusable: -fpatchable-function-entry=%d,%d", a->n, a->m);
        break;
    default: snprintf(buf, len, "not in the program");
    }
    return buf;
}
