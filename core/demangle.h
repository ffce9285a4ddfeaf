/*
 * demangle.h - C++ symbol names for people ("_ZN5Field3lowEi" ->
 * "Field::low(int)"), with a demangler of hprof's own (libiberty's, linked
 * in): a C++ program need not have libstdc++ loaded (MPICH's mpicxx links
 * it only where the program uses it), and its names must read the same
 * either way. The text is what libstdc++'s __cxa_demangle gives.
 * Allocates: not for signal handlers.
 */
#ifndef HPROF_DEMANGLE_H
#define HPROF_DEMANGLE_H

/* The demangled name (malloc'd), or NULL when symbol is not a mangled C++
 * name or does not demangle. */
char *hprof_demangle(const char *symbol);

#endif
