/*
 * exact_select.h - which of the functions with a patchable entry are
 * measured exactly: asked for in the environment, decided per batch of
 * functions (all of them at MPI_Init, then each library dlopen adds).
 *
 * HPROFTEST_EXACT=name,name (a test knob) selects functions by name: the
 * symbol's own, its demangled form with or without the parameter list,
 * and GCC's clones of it (name.isra.N, name.constprop.N; not name.part.N
 * or name.cold, pieces of its body).
 *
 * Not from signal handlers (allocates).
 */
#ifndef HPROF_EXACT_SELECT_H
#define HPROF_EXACT_SELECT_H

typedef struct exact_fn_info {     /* one function with a patchable entry */
    const char *name;              /* demangled ("ns::solve(int)"), never NULL */
    const char *mangled;           /* the symbol, or NULL when the same */
    const char *module;            /* path of its ELF object */
    unsigned long long size;       /* bytes of code */
} exact_fn_info;

typedef struct exact_choice exact_choice;

/* The selection the environment asks for; NULL when none is (or it is
 * wrong: one line says so). */
exact_choice *exact_choice_from_env(void);
/* The variable that asked, for messages. */
const char *exact_choice_var(const exact_choice *c);
/* chosen[i] = 1 for each of fns[0..n-1] selected. 0, or -1 (one line said why). */
int exact_choice_eval(exact_choice *c, const exact_fn_info *fns, int n, unsigned char *chosen);
/* What was asked by name and matched nothing so far ("a, b"), or NULL. */
const char *exact_choice_unmatched(exact_choice *c);
void exact_choice_free(exact_choice *c);

/* A symbol's demangled name (malloc'd), or NULL when it is not mangled or
 * no demangler is loaded. */
char *exact_demangle(const char *symbol);

#endif
