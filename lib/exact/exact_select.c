#define _GNU_SOURCE
/*
 * exact_select.c - see exact_select.h.
 */
#include "exact_select.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

struct exact_choice {
    const char *var;
    char **names;   /* HPROFTEST_EXACT's names */
    char *matched;  /* per name: some function took it */
    int nnames;
    char *unmatched;
};

static void split_names(exact_choice *c, const char *list)
{
    char *copy = strdup(list);
    for (char *save = NULL, *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
        char **v = realloc(c->names, (size_t)(c->nnames + 1) * sizeof *v);
        if (!v)
            break;
        c->names = v;
        c->names[c->nnames++] = strdup(tok);
    }
    free(copy);
    c->matched = calloc((size_t)c->nnames + 1, 1);
}

exact_choice *exact_choice_from_env(void)
{
    const char *knob = getenv("HPROFTEST_EXACT");
    if (!knob || !*knob)
        return NULL;
    exact_choice *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->var = "HPROFTEST_EXACT";
    split_names(c, knob);
    if (c->nnames == 0) {
        hprof_say("%s='%s' names no function; nothing is measured exactly", c->var, knob);
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
        const char *k = strncmp(p, ".isra.", 6) == 0 ? p + 6 : strncmp(p, ".constprop.", 11) == 0 ? p + 11 : NULL;
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
    return colons && (size_t)(colons - name) == (size_t)(mod - sym - 2) && strncmp(sym + 2, name, (size_t)(colons - name)) == 0 &&
           strcmp(mod + 5, colons + 2) == 0;
}

static int name_matches(const exact_fn_info *f, const char *name)
{
    const char *sym = f->mangled ? f->mangled : f->name;
    return strcmp(name, "*") == 0 || same_or_clone(sym, name) || strcmp(f->name, name) == 0 || same_without_params(f->name, name) ||
           fortran_name(sym, name);
}

int exact_choice_eval(exact_choice *c, const exact_fn_info *fns, int n, unsigned char *chosen)
{
    for (int i = 0; i < n; i++) {
        chosen[i] = 0;
        for (int k = 0; k < c->nnames; k++) {
            if (name_matches(&fns[i], c->names[k])) {
                chosen[i] = 1;
                c->matched[k] = 1;
            }
        }
    }
    return 0;
}

const char *exact_choice_unmatched(exact_choice *c)
{
    size_t len = 1;
    for (int k = 0; k < c->nnames; k++)
        len += c->matched[k] ? 0 : strlen(c->names[k]) + 2;
    free(c->unmatched);
    c->unmatched = NULL;
    if (len == 1 || !(c->unmatched = malloc(len)))
        return NULL;
    c->unmatched[0] = '\0';
    for (int k = 0; k < c->nnames; k++) {
        if (c->matched[k])
            continue;
        if (c->unmatched[0])
            strcat(c->unmatched, ", ");
        strcat(c->unmatched, c->names[k]);
    }
    return c->unmatched;
}

void exact_choice_free(exact_choice *c)
{
    if (!c)
        return;
    for (int k = 0; k < c->nnames; k++)
        free(c->names[k]);
    free(c->names);
    free(c->matched);
    free(c->unmatched);
    free(c);
}

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

char *exact_demangle(const char *symbol)
{
    static demangle_fn demangle;
    static int looked;
    if (symbol[0] != '_' || symbol[1] != 'Z')
        return NULL;
    if (!looked) {
        demangle = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
        looked = 1;
    }
    int status = -1;
    char *d = demangle ? demangle(symbol, NULL, NULL, &status) : NULL;
    if (status != 0) {
        free(d);
        return NULL;
    }
    return d;
}
