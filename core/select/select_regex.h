/*
 * select_regex.h - a bound on the work a selection's regular expression
 * may make glibc do, checked before regcomp. Private to core/select/.
 *
 * glibc compiles a bounded repeat by copying its operand (x{1,n} is n
 * optional copies, and nested repeats multiply), and both the compile and
 * the automaton it builds grow with that size, faster than linearly
 * (x{1,10000}: 3 s and 790 MB in regcomp; (((a{1,40}){1,40}){1,40}){1,40}
 * 1.8 GB); back-references make regexec backtrack, exponentially in the
 * worst case (46 s on a 21-character name). A selection is compiled at
 * MPI_Init on every rank, so both are refused, each with its one line:
 * back-references outright, repeats where expanding them would add more
 * than SELECT_REGEX_MAX_POSITIONS positions (a long list of names, "^(a|b|
 * ...)$", costs glibc little: only what repeats add is bounded).
 */
#ifndef HPROF_SELECT_REGEX_H
#define HPROF_SELECT_REGEX_H

#include <stddef.h>

#define SELECT_REGEX_MAX_POSITIONS 2000

/* 0 when re (POSIX extended) is within the bounds, else -1 and why in
 * why (one phrase, no trailing newline). Syntax errors are left to
 * regcomp. */
int select_regex_check(const char *re, char *why, size_t len);

#endif
