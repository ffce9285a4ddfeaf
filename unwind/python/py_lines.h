/*
 * py_lines.h - the source line of an instruction from a copy of a CPython
 * 3.11 code object's location table (co_linetable, Objects/locations.md in
 * CPython's sources). Pure computation on bytes we own: used at finalize.
 */
#ifndef HPROF_PY_LINES_H
#define HPROF_PY_LINES_H

#include <stddef.h>
#include <stdint.h>

/* The line of the instruction at code unit `unit` (2-byte units from the
 * code's first instruction), counting from firstline as CPython does;
 * -1 where the table says the instruction has no line, or when unit lies
 * beyond the table (a copy may be cut short). */
int py_line_at(const uint8_t *table, size_t len, int firstline, uint32_t unit);

#endif
