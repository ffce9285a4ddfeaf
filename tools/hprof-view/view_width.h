/*
 * view_width.h - text that fits the terminal: its width, call paths elided
 * in the middle ("main > ... > write_solution > __write"), and findings
 * wrapped at spaces.
 */
#ifndef HPROF_VIEW_WIDTH_H
#define HPROF_VIEW_WIDTH_H

#include <stddef.h>
#include <stdio.h>
#include "tools/hprof-view/vtree.h"

/* Non-breaking space: view_print_wrapped prints it as a space but never
 * breaks a line there (so a call path stays on one line). */
#define VIEW_NBSP '\x01'

/* COLUMNS when set (20..10000), else the terminal's width when standard
 * output is one, else 100. */
int view_columns(void);

/* The call path of v, names joined by " > " (with VIEW_NBSP for the spaces),
 * at most max characters: the root, the last frame, the program's deepest
 * own frame (not in a shared library), then as many frames above the last
 * one as fit, "..." for each gap ("main > ... > write_solution > ... >
 * __write"); a name too long by itself is cut with "...". Returns buf. */
const char *view_path_fit(const vtree *t, int v, size_t max, char *buf, size_t len);

/* Prints text wrapped at spaces into lines of at most width characters
 * (ANSI colour codes count as none): the first line after first_prefix,
 * the others indented by indent spaces; color/reset around the text. */
void view_print_wrapped(FILE *out, const char *first_prefix, int indent, const char *text, int width,
                        const char *color, const char *reset);

#endif
