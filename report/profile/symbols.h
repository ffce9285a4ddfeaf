/*
 * symbols.h - addresses of this process to function names, modules and
 * source lines, with elfutils' libdwfl (reads .symtab and DWARF, so static
 * functions and programs linked without -rdynamic resolve too). Used once
 * per distinct address at finalize, never on a hot path.
 */
#ifndef HPROF_SYMBOLS_H
#define HPROF_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

typedef struct symbols symbols;

typedef struct sym_info {
    uint64_t start;      /* function start address, 0 if unknown */
    const char *name;    /* demangled (or as found); valid until symbols_close */
    const char *mangled; /* NULL when the name is not mangled */
    const char *module;  /* path of the ELF object */
    int named;           /* 1: found in a symbol table; 0: name made up (set_unknown) */
} sym_info;

symbols *symbols_open(void);
void symbols_close(symbols *s);

/* The function containing pc. Returns 0, or -1 if pc is in no known module
 * (info then holds a synthetic name). Reads no DWARF: its first line is
 * symbols_line(info->start), asked only where it is shown, since reading a
 * module's DWARF can cost more than all the rest (libc's debug file:
 * ~50 ms of decompression for the start-up frame above main). */
int symbols_function(symbols *s, uint64_t pc, sym_info *info);

/* Source file and line of pc; returns 0, or -1 if there is no line info,
 * or pc is in a system library (under /lib, /usr/lib, ...: their lines come
 * from debug packages, and libc's cost ~50-90 ms a rank to read) and
 * HPROF_SYSTEM_LINES is not 1. */
int symbols_line(symbols *s, uint64_t pc, const char **file, int *line);

/* "libfoo.so.1+0x1234": pc as its object's file name and ELF address (what
 * nm, objdump and addr2line take); returns 0, or -1 if pc is in no object. */
int symbols_address(symbols *s, uint64_t pc, char *buf, size_t len);

#endif
