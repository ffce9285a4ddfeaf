/*
 * exact_absent.h - why a function asked for by name (HPROFTEST_EXACT,
 * exact_select.h) has no patchable entry hprof can use, as precisely as
 * the modules loaded tell (issue 38.3): no function symbol of that name
 * in any of them, and their debug information (DWARF, the file's own)
 * names it inlined, or it does not; or it has a symbol, and its module was
 * built without -fpatchable-function-entry, or that module has NOP areas
 * but not this function's (its object file was built without the flag),
 * or its NOP area has a shape hprof cannot patch (exact_sites.h), told as
 * the N,M it was built with.
 *
 * Reads the modules' files (symbol tables, section headers, DWARF) and
 * their mapped code: at MPI_Init, only for names that matched nothing,
 * never from signal handlers.
 */
#ifndef HPROF_EXACT_ABSENT_H
#define HPROF_EXACT_ABSENT_H

#include <stddef.h>

enum {
    EXACT_ABSENT_NOWHERE,     /* no symbol, no DWARF naming it inlined */
    EXACT_ABSENT_INLINED,     /* no symbol; DWARF of module names it inlined */
    EXACT_ABSENT_MODULE_BARE, /* a symbol in module, which has no NOP areas at all */
    EXACT_ABSENT_OBJECT_BARE, /* a symbol in module, which has NOP areas, but not this function's */
    EXACT_ABSENT_UNFIT        /* a NOP area of -fpatchable-function-entry=n,m hprof cannot patch */
};

typedef struct exact_absence {
    int why;          /* EXACT_ABSENT_* */
    char module[256]; /* the base name of the module that says so (not for NOWHERE) */
    int n, m;         /* UNFIT: its shape */
} exact_absence;

/* Why name has no patchable entry, from the modules loaded now. */
void exact_absent_explain(const char *name, exact_absence *out);

/* The reason as the end of a line ("is not in the program: ..."), and as
 * a few words for the profile ("not in the program"), into buf. */
const char *exact_absence_line(const exact_absence *a, char *buf, size_t len);
const char *exact_absence_short(const exact_absence *a, char *buf, size_t len);

#endif
