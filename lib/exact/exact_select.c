#define _GNU_SOURCE
/*
 * exact_select.c - see exact_select.h.
 */
#include "lib/exact/exact_select.h"

#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/log.h"

struct exact_choice {
    const char *var;     /* for messages: the variable(s) that asked */
    select_expr *select; /* HPROF_SELECT's, NULL: none */
    select_expr *filter; /* HPROF_FILTER's, NULL: none */
    char **names; /* HPROFTEST_EXACT's names, then those HPROF_SELECT and HPROF_FILTER ask for literally */
    const char **name_var;        /* per name: the variable that asked */
    char *matched;                /* per name: some function took it (of the literal ones: some has it) */
    int nnames, nknob;            /* names, of them HPROFTEST_EXACT's (which select) */
    int took_select, took_filter; /* the expression took some function so far */
    int failed_once;              /* an evaluation error was said */
    int automatic;                /* HPROF_SELECT=auto (exact_auto.h) */
};

/* HPROF_SELECT=auto, spaces around it allowed. */
static int is_auto(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n')
        s++;
    if (strncmp(s, "auto", 4) != 0)
        return 0;
    for (s += 4; *s == ' ' || *s == '\t' || *s == '\n'; s++)
        ;
    return *s == '\0';
}

/* name, asked for by var, added to the names (once). */
static void add_name(exact_choice *c, const char *name, const char *var)
{
    for (int k = 0; k < c->nnames; k++)
        if (strcmp(c->names[k], name) == 0)
            return;
    char **v = realloc(c->names, (size_t)(c->nnames + 1) * sizeof *v);
    const char **w = v ? realloc(c->name_var, (size_t)(c->nnames + 1) * sizeof *w) : NULL;
    if (v)
        c->names = v;
    if (w)
        c->name_var = w;
    if (v && w && (c->names[c->nnames] = strdup(name)))
        c->name_var[c->nnames++] = var;
}

static void split_names(exact_choice *c, const char *list)
{
    char *copy = strdup(list);
    for (char *save = NULL, *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok;
         tok = strtok_r(NULL, ",", &save))
        add_name(c, tok, "HPROFTEST_EXACT");
    free(copy);
    c->nknob = c->nnames;
}

/* The names expression e (of var) asks for literally (select.h). */
static void add_literals(exact_choice *c, const select_expr *e, const char *var)
{
    int n = select_literal_names(e, NULL, 0);
    const char **v = n ? calloc((size_t)n, sizeof *v) : NULL;
    n = v ? select_literal_names(e, v, n) : 0;
    for (int i = 0; i < n; i++)
        add_name(c, v[i], var);
    free(v);
}

/* HPROF_SELECT and HPROF_FILTER, parsed: one line for each that is wrong. */
static void read_selections(exact_choice *c)
{
    char err[512];
    if (hprof_config.select && is_auto(hprof_config.select))
        c->automatic = 1;
    else if (hprof_config.select && !(c->select = select_parse(hprof_config.select, err, sizeof err)))
        hprof_say("HPROF_SELECT: %s; it selects nothing", err);
    if (hprof_config.filter && !(c->filter = select_from_scorep_filter(hprof_config.filter, err, sizeof err)))
        hprof_say("HPROF_FILTER: %s; it selects nothing", err);
}

exact_choice *exact_choice_from_env(void)
{
    const char *knob = getenv("HPROFTEST_EXACT");
    if (!hprof_config.select && !hprof_config.filter && (!knob || !*knob))
        return NULL;
    exact_choice *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->var = hprof_config.select && hprof_config.filter ? "HPROF_SELECT and HPROF_FILTER"
             : hprof_config.select                      ? "HPROF_SELECT"
             : hprof_config.filter                      ? "HPROF_FILTER"
                                                        : "HPROFTEST_EXACT";
    read_selections(c);
    if (knob && *knob)
        split_names(c, knob);
    add_literals(c, c->select, "HPROF_SELECT");
    add_literals(c, c->filter, "HPROF_FILTER");
    c->matched = calloc((size_t)c->nnames + 1, 1);
    if (!c->select && !c->filter && c->nknob == 0 && !c->automatic) {
        if (knob && *knob && !hprof_config.select && !hprof_config.filter)
            hprof_say("HPROFTEST_EXACT='%s' names no function; nothing is measured exactly", knob);
        exact_choice_free(c);
        return NULL;
    }
    return c;
}

const char *exact_choice_var(const exact_choice *c)
{
    return c->var;
}

/* sym is name, or name followed by GCC clone suffixes (.isra.N,
 * .constprop.N, in any order and number). */
static int same_or_clone(const char *sym, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(sym, name, n) != 0)
        return 0;
    for (const char *p = sym + n; *p;) {
        const char *k = strncmp(p, ".isra.", 6) == 0         ? p + 6
                        : strncmp(p, ".constprop.", 11) == 0 ? p + 11
                                                             : NULL;
        if (!k || !(*k >= '0' && *k <= '9'))
            return 0;
        while (*k >= '0' && *k <= '9')
            k++;
        p = k;
    }
    return 1;
}

/* The demangled name without its parameter list ("ns::f(int)" -> "ns::f"). */
static int same_without_params(const char *demangled, const char *name)
{
    size_t n = strlen(name);
    return strncmp(demangled, name, n) == 0 && demangled[n] == '(';
}

/* gfortran's symbols: name_ for an external procedure, __mod_MOD_name for
 * a module's (named name, or mod::name). */
static int fortran_name(const char *sym, const char *name)
{
    size_t n = strlen(name), ls = strlen(sym);
    if (ls == n + 1 && sym[n] == '_' && strncmp(sym, name, n) == 0)
        return 1;
    const char *mod = strstr(sym, "_MOD_");
    if (strncmp(sym, "__", 2) != 0 || !mod)
        return 0;
    if (strcmp(mod + 5, name) == 0)
        return 1;
    const char *colons = strstr(name, "::");
    return colons && (size_t)(colons - name) == (size_t)(mod - sym - 2) &&
           strncmp(sym + 2, name, (size_t)(colons - name)) == 0 && strcmp(mod + 5, colons + 2) == 0;
}

int exact_name_matches(const exact_fn_info *f, const char *name)
{
    const char *sym = f->mangled ? f->mangled : f->name;
    return strcmp(name, "*") == 0 || same_or_clone(sym, name) || strcmp(f->name, name) == 0 ||
           same_without_params(f->name, name) || fortran_name(sym, name);
}

int exact_choice_auto(const exact_choice *c)
{
    return c->automatic;
}

int exact_choice_dynamic(const exact_choice *c)
{
    if (c->automatic)
        return 1;
    unsigned uses = (c->select ? select_inputs(c->select) : 0) | (c->filter ? select_inputs(c->filter) : 0);
    return (uses & (SELECT_USES_CALLS | SELECT_USES_MPI_PATH)) != 0;
}

int exact_choice_needs_files(const exact_choice *c)
{
    return c->select || c->filter;
}

/* The functions expression e takes, added to chosen (*took set when it takes one). */
static int add_selected(exact_choice *c, const select_expr *e, const char *var, const select_graph *g,
                        unsigned char *chosen, int *took)
{
    unsigned char *mine = calloc((size_t)g->nfn + 1, 1);
    char err[512];
    if (!mine)
        return -1;
    int rc = select_eval(e, g, mine, err, sizeof err);
    if (rc != 0 && !c->failed_once) {
        c->failed_once = 1;
        hprof_say("%s: %s; it selects nothing", var, err);
    }
    for (int i = 0; rc == 0 && i < g->nfn; i++) {
        chosen[i] |= mine[i];
        *took |= mine[i];
    }
    free(mine);
    return rc;
}

int exact_choice_eval(exact_choice *c, const select_graph *g, unsigned char *chosen)
{
    for (int i = 0; i < g->nfn; i++) {
        chosen[i] = 0;
        for (int k = 0; k < c->nknob; k++) {
            if (exact_name_matches(&g->fn[i], c->names[k])) {
                chosen[i] = 1;
                c->matched[k] = 1;
            }
        }
    }
    int rc = 0;
    if (c->select)
        rc |= add_selected(c, c->select, "HPROF_SELECT", g, chosen, &c->took_select);
    if (c->filter)
        rc |= add_selected(c, c->filter, "HPROF_FILTER", g, chosen, &c->took_filter);
    return rc ? -1 : 0;
}

int exact_choice_names(const exact_choice *c)
{
    return c->nnames;
}

const char *exact_choice_name(const exact_choice *c, int k, int *matched, const char **var)
{
    *matched = c->matched[k];
    if (var)
        *var = c->name_var[k];
    return c->names[k];
}

void exact_choice_note(exact_choice *c, const select_graph *g)
{
    for (int k = c->nknob; k < c->nnames; k++)
        for (int i = 0; i < g->nfn && !c->matched[k]; i++)
            c->matched[k] = (char)exact_name_matches(&g->fn[i], c->names[k]);
}

int exact_choice_exprs(const exact_choice *c)
{
    return (c->select != NULL) + (c->filter != NULL);
}

const char *exact_choice_expr(const exact_choice *c, int k, const char **text, int *took)
{
    if (k == 0 && c->select) {
        *text = hprof_config.select;
        *took = c->took_select;
        return "HPROF_SELECT";
    }
    *text = hprof_config.filter;
    *took = c->took_filter;
    return "HPROF_FILTER";
}

void exact_choice_free(exact_choice *c)
{
    if (!c)
        return;
    select_free(c->select);
    select_free(c->filter);
    for (int k = 0; k < c->nnames; k++)
        free(c->names[k]);
    free(c->names);
    free(c->name_var);
    free(c->matched);
    free(c);
}
