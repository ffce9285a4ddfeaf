/*
 * short_name.h - C++ names short enough for a terminal: without template
 * arguments, function parameters, qualifiers and return type
 * ("std::basic_filebuf<char, ...>::overflow(int)" -> "std::basic_filebuf::overflow").
 * Other names (C, Fortran, MPI, "module+0x1234") are left as they are.
 */
#ifndef HPROF_SHORT_NAME_H
#define HPROF_SHORT_NAME_H

#include "report/cube/reader/cube_reader.h"

/* The short form of a demangled name, malloc'd; keep_templates keeps the
 * template arguments (a longer form that tells instantiations apart). */
char *short_name(const char *full, int keep_templates);

/* Names the views print, per region: the short form where no other region
 * has the same one, else the form with template arguments where that one is
 * unique, else the full name; with long_names every full name. Returns an
 * array of p->nregions names (NULL when out of memory). */
const char **short_names_build(const cube_profile *p, int long_names);
void short_names_free(const cube_profile *p, const char **names);

#endif
