/*
 * exact_sites.c - see exact_sites.h. The section headers and the symbol
 * table come from the file (libelf); the records and the code bytes from
 * memory, as the loader relocated them. Code bytes are read only inside
 * the executable section a symbol belongs to, within [low, high): mapped
 * and readable as long as the module is.
 */
#include "lib/exact/exact_sites.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SECTION "__patchable_function_entries"
#define MAX_BEFORE 64 /* NOP bytes before an entry we look through for its symbol */

typedef struct fsym {
    uint64_t addr, size;
    const char *name;          /* in the ELF's string table (valid while it is open) */
    uint64_t code_lo, code_hi; /* its executable section (runtime), [0, 0) when not in one */
    int global;
    int claimed; /* a record names it (fit or not) */
} fsym;

static int by_addr(const void *a, const void *b)
{
    const fsym *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return y->global - x->global; /* the global one of aliases first */
}

/* The runtime range of section index ndx of elf when it is executable
 * code loaded with the module, else [0, 0). */
static void code_range(Elf *elf, size_t ndx, uint64_t bias, uint64_t *lo, uint64_t *hi)
{
    GElf_Shdr sh;
    Elf_Scn *scn = ndx < SHN_LORESERVE ? elf_getscn(elf, ndx) : NULL;
    *lo = *hi = 0;
    if (scn && gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS &&
        (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) == (SHF_ALLOC | SHF_EXECINSTR)) {
        *lo = bias + sh.sh_addr;
        *hi = *lo + sh.sh_size;
    }
}

/* The function symbols of the table section scn (runtime addresses). */
static int read_symbols(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, uint64_t bias, fsym **out, int *n)
{
    Elf_Data *d = elf_getdata(scn, NULL);
    if (!d || !sh->sh_entsize)
        return 0;
    int count = (int)(sh->sh_size / sh->sh_entsize);
    fsym *v = malloc((size_t)(count + 1) * sizeof *v);
    if (!v)
        return -1;
    int k = 0;
    for (int i = 0; i < count; i++) {
        GElf_Sym s;
        if (!gelf_getsym(d, i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC || s.st_shndx == SHN_UNDEF ||
            !s.st_value)
            continue;
        const char *name = elf_strptr(elf, sh->sh_link, s.st_name);
        if (!name || !*name)
            continue;
        v[k] = (fsym){ bias + s.st_value, s.st_size, name, 0, 0, GELF_ST_BIND(s.st_info) == STB_GLOBAL, 0 };
        code_range(elf, s.st_shndx, bias, &v[k].code_lo, &v[k].code_hi);
        k++;
    }
    qsort(v, (size_t)k, sizeof *v, by_addr);
    *out = v;
    *n = k;
    return 0;
}

/* The first function symbol at or after a, or NULL. */
static const fsym *symbol_from(const fsym *v, int n, uint64_t a)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (v[mid].addr < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n ? &v[lo] : NULL;
}

/* Length of the NOP instruction at p (at most left bytes), 0 if none. */
static int nop_len(const unsigned char *p, int left)
{
    static const unsigned char forms[][9] = {
        { 1, 0x90 },
        { 2, 0x66, 0x90 },
        { 3, 0x0f, 0x1f, 0x00 },
        { 4, 0x0f, 0x1f, 0x40, 0x00 },
        { 5, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
        { 6, 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
        { 7, 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00 },
        { 8, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        int len = forms[i][0];
        if (len <= left && memcmp(p, forms[i] + 1, (size_t)len) == 0)
            return len;
    }
    return 0;
}

/* Every byte of [p, p + n) is in NOP instructions. */
static int all_nops(const unsigned char *p, int n)
{
    for (int len; n > 0; p += len, n -= len)
        if (!(len = nop_len(p, n)))
            return 0;
    return 1;
}

static const unsigned char endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };

/* The site of the record at area (the first NOP byte), its function f:
 * the area and the entry's first 6 bytes are readable. */
static int site_of(uint64_t area, const fsym *f, exact_site *s)
{
    const unsigned char *before = (const unsigned char *)(uintptr_t)area;
    int m = (int)(f->addr - area);
    if (m < 5 || !all_nops(before, m))
        return -1;
    uint64_t j = f->addr;
    if (memcmp((const void *)(uintptr_t)j, endbr64, 4) == 0)
        j += 4;
    const unsigned char *at = (const unsigned char *)(uintptr_t)j;
    if (!((at[0] == 0x90 && at[1] == 0x90) || (at[0] == 0x66 && at[1] == 0x90)))
        return -1;
    if ((j & 63) == 63)
        return -1; /* the jump would span two cache lines: no single store writes it */
    s->fn = f->addr;
    s->size = f->size;
    s->stub_jmp_at = f->addr - 5;
    s->jmp_at = j;
    memcpy(&s->nops, at, 2);
    s->by_symbol = 0;
    s->name = strdup(f->name);
    return s->name ? 0 : -1;
}

int exact_site_at(uint64_t fn, uint64_t size, const char *name, exact_site *s)
{
    fsym f = { .addr = fn, .size = size, .name = name, .global = 1 };
    return site_of(fn - 5, &f, s);
}

void exact_area_shape(uint64_t area, uint64_t fn, uint64_t high, int *n, int *m)
{
    uint64_t j = fn;
    if (fn + 4 <= high && memcmp((const void *)(uintptr_t)j, endbr64, 4) == 0)
        j += 4;
    int left = high > j ? (int)(high - j < MAX_BEFORE ? high - j : MAX_BEFORE) : 0, at = 0;
    for (int len;
         at < left && (len = nop_len((const unsigned char *)(uintptr_t)(j + (uint64_t)at), left - at)) > 0;)
        at += len;
    *m = (int)(fn - area);
    *n = *m + at;
}

/* The records of section scn (in memory at bias + its address). */
static int read_records(const GElf_Shdr *sh, uint64_t bias, uint64_t low, uint64_t high, const fsym *syms,
                        int nsyms, exact_module_sites *out)
{
    const uint64_t *rec = (const uint64_t *)(uintptr_t)(bias + sh->sh_addr);
    int n = (int)(sh->sh_size / sizeof(uint64_t));
    exact_site *v = realloc(out->v, (size_t)(out->n + n + 1) * sizeof *v);
    if (!v)
        return -1;
    out->v = v;
    for (int i = 0; i < n; i++) {
        uint64_t area = rec[i];
        if (area < low || area >= high)
            continue; /* a record of discarded code */
        out->records++;
        fsym *f = (fsym *)symbol_from(syms, nsyms, area);
        if (!f || f->addr - area > MAX_BEFORE || f->addr + 16 > high) {
            out->unnamed++;
            continue;
        }
        f->claimed = 1;
        if (site_of(area, f, &v[out->n]) == 0)
            out->n++;
        else if (out->unfit++ == 0)
            exact_area_shape(area, f->addr, high, &out->unfit_n, &out->unfit_m);
    }
    return 0;
}

/* The site of function f found by its code alone: at least 5 NOP bytes
 * before its entry (from the nearest instruction boundary that decodes as
 * NOPs up to it) and the 2-byte NOP at it. Reads only inside f's
 * executable section and [low, high). 0, or -1. */
static int site_by_code(const fsym *f, uint64_t low, uint64_t high, exact_site *s)
{
    uint64_t lo = f->code_lo > low ? f->code_lo : low, hi = f->code_hi < high ? f->code_hi : high;
    if (f->addr < lo + 5 || f->addr + 6 > hi)
        return -1;
    const unsigned char *p = (const unsigned char *)(uintptr_t)f->addr;
    int endbr = memcmp(p, endbr64, 4) == 0;
    if (!((p[endbr * 4] == 0x90 && p[endbr * 4 + 1] == 0x90) ||
          (p[endbr * 4] == 0x66 && p[endbr * 4 + 1] == 0x90)))
        return -1; /* the common case, cheap: no NOP at the entry */
    uint64_t room = f->addr - lo < MAX_BEFORE ? f->addr - lo : MAX_BEFORE;
    for (int m = 5; m <= (int)room; m++)
        if (all_nops((const unsigned char *)(uintptr_t)(f->addr - (uint64_t)m), m))
            return site_of(f->addr - (uint64_t)m, f, s);
    return -1;
}

/* The functions no record names whose code shows the NOP area: the
 * records of a whole object file are gone where the linker discarded the
 * COMDAT group its __patchable_function_entries section is tied to
 * (SHF_LINK_ORDER; GCC 12, binutils 2.40), its functions are not. One
 * site per address (aliases sort next to each other). */
static int scan_symbols(const fsym *syms, int nsyms, uint64_t low, uint64_t high, exact_module_sites *out)
{
    exact_site *v = realloc(out->v, (size_t)(out->n + nsyms + 1) * sizeof *v);
    if (!v)
        return -1;
    out->v = v;
    for (int i = 0; i < nsyms; i++) {
        const fsym *f = &syms[i];
        if (f->code_hi == 0 || (i > 0 && syms[i - 1].addr == f->addr))
            continue;
        int named = f->claimed;
        for (int k = i + 1; k < nsyms && syms[k].addr == f->addr; k++)
            named |= syms[k].claimed;
        if (named || site_by_code(f, low, high, &v[out->n]) != 0)
            continue;
        v[out->n++].by_symbol = 1;
        out->by_symbol++;
    }
    return 0;
}

static int read_elf(Elf *elf, uint64_t bias, uint64_t low, uint64_t high, exact_module_sites *out)
{
    size_t shstrndx;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        return -1;
    Elf_Scn *symtab = NULL, *dynsym = NULL, *scn = NULL;
    GElf_Shdr sh, symsh;
    int have_records = 0;
    while ((scn = elf_nextscn(elf, scn))) {
        if (!gelf_getshdr(scn, &sh))
            continue;
        const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
        if (sh.sh_type == SHT_SYMTAB)
            symtab = scn;
        else if (sh.sh_type == SHT_DYNSYM)
            dynsym = scn;
        else if (name && strcmp(name, SECTION) == 0 && (sh.sh_flags & SHF_ALLOC))
            have_records = 1;
    }
    if (!have_records)
        return 0;
    Elf_Scn *tab = symtab ? symtab : dynsym;
    fsym *syms = NULL;
    int nsyms = 0;
    if (tab && gelf_getshdr(tab, &symsh) && read_symbols(elf, tab, &symsh, bias, &syms, &nsyms) != 0)
        return -1;
    int rc = 0;
    for (scn = NULL; rc == 0 && (scn = elf_nextscn(elf, scn));) {
        const char *name;
        if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) &&
            (name = elf_strptr(elf, shstrndx, sh.sh_name)) && strcmp(name, SECTION) == 0)
            rc = read_records(&sh, bias, low, high, syms, nsyms, out);
    }
    if (rc == 0)
        rc = scan_symbols(syms, nsyms, low, high, out);
    free(syms);
    return rc;
}

int exact_sites_read(const char *path, uint64_t bias, uint64_t low, uint64_t high, exact_module_sites *out)
{
    memset(out, 0, sizeof *out);
    if (!path || path[0] != '/')
        return -1; /* the vDSO, or a file we cannot name */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    elf_version(EV_CURRENT);
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    int rc = elf && elf_kind(elf) == ELF_K_ELF ? read_elf(elf, bias, low, high, out) : -1;
    if (elf)
        elf_end(elf);
    close(fd);
    if (rc != 0)
        exact_sites_free(out);
    return rc;
}

void exact_sites_free(exact_module_sites *s)
{
    for (int i = 0; i < s->n; i++)
        free(s->v[i].name);
    free(s->v);
    memset(s, 0, sizeof *s);
}
