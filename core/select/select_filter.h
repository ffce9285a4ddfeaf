/*
 * select_filter.h - Score-P filter files: what a function's rules say
 * (select_filter_read.c reads the file into a select_filter, see
 * select_node.h; select_filter_match.c applies it). Private to
 * core/select/.
 *
 * Matching follows Score-P's manual ("Filtering") and its filter library:
 * patterns are fnmatch() wildcards without flags ('*' matches any string,
 * '/' included; '?' one character; [...] a set; '\' escapes the next
 * character); within a block the rules apply in order, everything starts
 * included and the last rule that matches decides; the file block is
 * applied first (to the function's source file, its path simplified:
 * "//", "/./" and "dir/../" removed), and a function it excludes stays
 * excluded whatever the region block says. A function without a file is
 * not excluded by the file block. A MANGLED pattern is applied to the
 * mangled name when the function has one, else to its name.
 *
 * CaPI writes one rule per selected function, and a program may have tens
 * of thousands of functions, so a block is indexed once read
 * (select_filter_index.c): a pattern without wildcards is an exact name,
 * found in a hash table that keeps the last rule per (name, MANGLED);
 * only the rules with wildcards are matched one by one, from the last
 * back to the best exact match found.
 */
#ifndef HPROF_SELECT_FILTER_H
#define HPROF_SELECT_FILTER_H

#include <stddef.h>

#include "core/select/select_node.h"

/* 1: the filter excludes fn (Score-P would not measure it), 0: it does
 * not, -1: fnmatch() failed on a pattern (one line in err). */
int select_filter_excludes(const select_filter *f, const select_fn *fn, char *err, size_t errlen);

/* Indexes a block's rules (its literals, its wildcard list). 0, or -1:
 * no memory. */
int select_block_index(select_block *b);

/* The last rule of b whose literal is s, among rules with this MANGLED
 * flag; -1: none. */
int select_block_literal(const select_block *b, const char *s, int mangled);

/* Simplifies a path in place as Score-P does before matching file rules. */
void select_simplify_path(char *path);

#endif
