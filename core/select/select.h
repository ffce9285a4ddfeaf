/*
 * select.h - which functions to measure exactly (issue 29.3 a, b).
 *
 * A selection is a set of functions, chosen from what the runtime knows
 * of the program (a select_graph: its functions, with name, file, ELF
 * object, size and whether they were seen on a call path to MPI, and the
 * calls seen between them). It comes from one of two sources:
 *
 *   select_parse               the selection language (HPROF_SELECT), after
 *                              CaPI's selectors: by name, mangled name, file
 *                              or module (POSIX extended regexes), on a call
 *                              path to MPI, callers/callees closure, size,
 *                              union |, intersection &, difference -,
 *                              complement !, named sub-expressions; the
 *                              grammar is in README.md, "Choosing functions
 *                              to measure exactly";
 *   select_from_scorep_filter  a Score-P filter file (HPROF_FILTER), parsed
 *                              as Score-P's manual ("Filtering") documents
 *                              it and as scorep-score -g and CaPI write it.
 *                              It selects what Score-P would measure: every
 *                              function of the graph that its rules do not
 *                              filter (the source file rules first, then
 *                              the region name rules; in each block the
 *                              last matching rule wins, and everything
 *                              starts included). A file without any
 *                              EXCLUDE rule is refused: it would select
 *                              every function.
 *
 * Both give a select_expr; select_eval applies it to a graph, as often as
 * the runtime likes (the result is a pure function of the graph, so
 * evaluating again after more calls or MPI paths were seen may add or drop
 * functions: select_inputs says whether it can).
 *
 * Pure C: no MPI, no runtime state, no logging. It allocates, so it runs
 * at MPI_Init or in the runtime's background work, never in a signal
 * handler. Errors come back as one line in err (no trailing newline,
 * never longer than errlen - 1), ready to print after the variable's name;
 * a filter file's errors name FILE:LINE, the language's the column.
 */
#ifndef HPROF_SELECT_H
#define HPROF_SELECT_H

#include <stddef.h>

typedef struct select_fn {   /* one function the runtime knows of */
    const char *name;        /* demangled name ("ns::solve(int)"), never NULL */
    const char *mangled;     /* mangled name, or NULL when the same */
    const char *file;        /* source file, or NULL */
    const char *module;      /* path of its ELF object (program or library), or NULL */
    unsigned long long size; /* bytes of code */
    int on_mpi_path;         /* 1: seen on a call path to an MPI call; 0: not (yet) */
} select_fn;

typedef struct select_graph { /* what the runtime knows: functions, and calls seen */
    int nfn;
    const select_fn *fn;
    int ncalls;
    const int (*calls)[2]; /* {caller index, callee index} into fn */
} select_graph;

typedef struct select_expr select_expr;

/* HPROF_SELECT: the selection language. NULL and one line in err (with the
 * column) when text is empty or wrong. */
select_expr *select_parse(const char *text, char *err, size_t errlen);

/* HPROF_FILTER: a Score-P filter file as a selection. NULL and one line in
 * err ("FILE:LINE: ...", or "FILE: ..." when it cannot be read or has no
 * EXCLUDE rule). */
select_expr *select_from_scorep_filter(const char *path, char *err, size_t errlen);

/* chosen[i] (g->nfn bytes) = 1 for every function of g the selection
 * takes, 0 for the others. 0, or -1 with one line in err (a call's index
 * out of range, a function without a name, a wildcard fnmatch rejects). */
int select_eval(const select_expr *e, const select_graph *g, unsigned char *chosen, char *err, size_t errlen);

/* What select_eval reads besides the functions' own names, files, modules
 * and sizes: a result that uses calls or MPI paths can change as the run
 * shows more of them. */
#define SELECT_USES_CALLS 1u    /* callers() or callees() */
#define SELECT_USES_MPI_PATH 2u /* mpi_path */
unsigned select_inputs(const select_expr *e);

/* The function names e asks for by name alone, for a runtime that says
 * why one of them measures nothing: the NAME of name("^NAME$"),
 * name("^NAME\\(") and mangled("^NAME$") where NAME is a plain name
 * (letters, digits, '_', '::', '~'), and a Score-P filter's INCLUDE rules
 * without wildcards; only where they add functions (not under '!', nor
 * right of '-'). Up to max into out (strings e holds), the count;
 * repeats kept. */
int select_literal_names(const select_expr *e, const char **out, int max);

void select_free(select_expr *e);

#endif
