/*
 * exact_select.h - which of the functions with a patchable entry are
 * measured exactly: asked for in the environment, decided per batch of
 * functions (all of them at MPI_Init, then each library dlopen adds).
 *
 *   HPROF_SELECT   the selection language (core/select/select.h)
 *   HPROF_FILTER   a Score-P filter file (the same); with HPROF_SELECT too,
 *                  the functions either of them selects
 *   HPROFTEST_EXACT=name,name  (a test knob) functions by name: the
 *                  symbol's own, its demangled form with or without the
 *                  parameter list, GCC's clones of it (name.isra.N,
 *                  name.constprop.N; not name.part.N or name.cold, pieces
 *                  of its body), gfortran's name_ and __mod_MOD_name (also
 *                  as mod::name); * selects every function.
 *
 * The calls and MPI paths a selection may use (callers, callees,
 * mpi_path) are those passed in; at MPI_Init none is known yet.
 * Not from signal handlers (allocates).
 */
#ifndef HPROF_EXACT_SELECT_H
#define HPROF_EXACT_SELECT_H

#include "core/select/select.h"

/* One function with a patchable entry: core/select's description of it
 * (name demangled, mangled or NULL, file or NULL, module, size, whether
 * seen on a path to MPI). */
typedef select_fn exact_fn_info;

typedef struct exact_choice exact_choice;

/* The selection the environment asks for; NULL when none is (or it is
 * wrong: one line says so). */
exact_choice *exact_choice_from_env(void);
/* The variable that asked, for messages. */
const char *exact_choice_var(const exact_choice *c);
/* Whether the selection reads the calls or MPI paths seen (callers,
 * callees, mpi_path): then it is evaluated again as the run goes on. */
/* HPROF_SELECT=auto: hprof chooses (exact_auto.h), besides what the
 * other variables select. */
int exact_choice_auto(const exact_choice *c);
int exact_choice_dynamic(const exact_choice *c);
/* Whether the selection reads source files (HPROF_SELECT, HPROF_FILTER):
 * the caller fills them in only then. */
int exact_choice_needs_files(const exact_choice *c);
/* chosen[i] = 1 for each function of g selected. 0, or -1 (one line said why). */
int exact_choice_eval(exact_choice *c, const select_graph *g, unsigned char *chosen);
/* The names asked for: HPROFTEST_EXACT's, then those HPROF_SELECT and
 * HPROF_FILTER ask for literally (select_literal_names), each once; how
 * many, and name k, with whether some function took it so far (of the
 * literal ones: some function of a graph exact_choice_note saw has it,
 * taken or not) and the variable that asked (*var, may be NULL). */
int exact_choice_names(const exact_choice *c);
const char *exact_choice_name(const exact_choice *c, int k, int *matched, const char **var);
/* The literal names some function of g has noted (at each module read). */
void exact_choice_note(exact_choice *c, const select_graph *g);
/* Whether function f is one name asks for (the rules above). */
int exact_name_matches(const exact_fn_info *f, const char *name);
/* HPROF_SELECT's and HPROF_FILTER's expressions (not auto): how many, and
 * expression k's variable ("HPROF_SELECT"), its text, and whether it took
 * some function so far (*took). */
int exact_choice_exprs(const exact_choice *c);
const char *exact_choice_expr(const exact_choice *c, int k, const char **text, int *took);
void exact_choice_free(exact_choice *c);


#endif
