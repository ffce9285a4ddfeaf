/*
 * exact_sites.h - the patchable entries of one loaded module: the records
 * a program built with -fpatchable-function-entry=N,M keeps in its
 * __patchable_function_entries section (the address of each function's
 * NOP area, relocated by the loader), checked against the code and named
 * from the module's symbol table. The records are a hint: the linker drops
 * all of an object file's where it discards the COMDAT group their section
 * is tied to, so in a module that has the section (a sign it was built
 * with the flag, even where it is empty) every function symbol whose code
 * shows the NOP area is a site too, records or not.
 *
 * hprof needs M >= 5 NOP bytes before the entry (a jmp rel32 goes into
 * the last 5) and N - M >= 2 at the entry, after its endbr64 if it has
 * one, as one 2-byte NOP (66 90, clang) or two 1-byte ones (90 90, GCC):
 * a short jump goes there. -fpatchable-function-entry=18,16 is that, and
 * keeps each entry where the compiler aligns it (16 NOP bytes before an
 * aligned entry); 7,5 fits too, but its odd entries break C++ pointers to
 * member functions (bit 0 means "virtual" in the Itanium ABI).
 * Not for signal handlers (reads files, allocates).
 */
#ifndef HPROF_EXACT_SITES_H
#define HPROF_EXACT_SITES_H

#include <stdint.h>

typedef struct exact_site {
    uint64_t fn;          /* the function's address (its symbol) */
    uint64_t size;        /* its symbol's size */
    uint64_t stub_jmp_at; /* the 5 NOP bytes before the entry: the jump to its stub goes here */
    uint64_t jmp_at;      /* the 2 NOP bytes at the entry: the jump back to stub_jmp_at goes here */
    uint16_t nops;        /* their bytes, to put back */
    uint8_t by_symbol;    /* found by its symbol and code alone: no record names it */
    char *name;           /* the symbol's name, as in the file (mangled) */
} exact_site;

typedef struct exact_module_sites {
    exact_site *v;
    int n;
    int records; /* records found, patchable or not */
    int unnamed; /* records of functions without a symbol */
    int unfit;   /* records whose NOP area does not fit the scheme above */
    int unfit_n; /* the first such record's shape: -fpatchable-function-entry=unfit_n,unfit_m */
    int unfit_m;
    int by_symbol; /* sites no record names, found by their symbol and code */
} exact_module_sites;

/* The sites of the module mapped from file path with load bias bias, its
 * segments in [low, high): its records' and, where it has the section,
 * its symbols'. 0 (n may be 0: no records, no site), or -1 when the file
 * could not be read. */
int exact_sites_read(const char *path, uint64_t bias, uint64_t low, uint64_t high, exact_module_sites *out);
void exact_sites_free(exact_module_sites *s);

/* The site of function fn (size bytes, symbol name) whose 5 NOP bytes
 * start at fn - 5, as for a record: 0, or -1 when its NOPs do not fit. */
int exact_site_at(uint64_t fn, uint64_t size, const char *name, exact_site *s);

/* The shape of the NOP area whose first byte is at area, of the function
 * entered at fn (mapped code, up to high): *m NOP bytes before the entry,
 * *n - *m at it (after its endbr64), the N,M of the
 * -fpatchable-function-entry=N,M it was built with. */
void exact_area_shape(uint64_t area, uint64_t fn, uint64_t high, int *n, int *m);

#endif
