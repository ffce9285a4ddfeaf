/*
 * select_eval.c - applies a selection to a graph (select.h: select_eval).
 * Every node gives a set: one byte per function, 0 or 1. Definitions are
 * evaluated once, in order (each uses only those before it); the call
 * lists for callers()/callees() are built once, when first needed.
 */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "core/select/select.h"
#include "core/select/select_filter.h"
#include "core/select/select_graph.h"
#include "core/select/select_node.h"

typedef struct eval_ctx {
    const select_graph *g;
    select_adj callees, callers; /* built on first use */
    unsigned char **defs;        /* the definitions' sets */
    char *err;
    size_t errlen;
} eval_ctx;

static unsigned char *new_set(eval_ctx *c)
{
    unsigned char *s = calloc((size_t)(c->g->nfn ? c->g->nfn : 1), 1);
    if (!s)
        select_err(c->err, c->errlen, "out of memory");
    return s;
}

static unsigned char *eval_node(eval_ctx *c, const select_node *n);

/* The field a regex node reads; NULL: the function has none. */
static const char *field(enum select_kind k, const select_fn *fn)
{
    switch (k) {
    case SEL_NAME: return fn->name;
    case SEL_MANGLED: return fn->mangled ? fn->mangled : fn->name;
    case SEL_FILE: return fn->file;
    default: return fn->module;
    }
}

/* The selectors that look at one function at a time. */
static int takes(const select_node *n, const select_fn *fn)
{
    switch (n->kind) {
    case SEL_ALL: return 1;
    case SEL_NONE: return 0;
    case SEL_MPI_PATH: return fn->on_mpi_path != 0;
    case SEL_MIN_SIZE: return fn->size >= n->num;
    default: {
        const char *s = field(n->kind, fn);
        return s && regexec(&n->re, s, 0, NULL, 0) == 0;
    }
    }
}

static unsigned char *eval_each(eval_ctx *c, const select_node *n)
{
    unsigned char *s = new_set(c);
    for (int i = 0; s && i < c->g->nfn; i++)
        s[i] = (unsigned char)takes(n, &c->g->fn[i]);
    return s;
}

static unsigned char *eval_filter(eval_ctx *c, const select_node *n)
{
    unsigned char *s = new_set(c);
    for (int i = 0; s && i < c->g->nfn; i++) {
        int x = select_filter_excludes(n->filter, &c->g->fn[i], c->err, c->errlen);
        if (x < 0) {
            free(s);
            return NULL;
        }
        s[i] = x == 0;
    }
    return s;
}

static unsigned char *eval_closure(eval_ctx *c, const select_node *n)
{
    int up = n->kind == SEL_CALLERS;
    select_adj *adj = up ? &c->callers : &c->callees;
    unsigned char *s = eval_node(c, n->a);
    if (s && !adj->start && select_adj_build(adj, c->g, up) != 0) {
        free(s);
        s = NULL;
        select_err(c->err, c->errlen, "out of memory");
    }
    if (s && select_closure(adj, c->g->nfn, s, n->num) != 0) {
        free(s);
        s = NULL;
        select_err(c->err, c->errlen, "out of memory");
    }
    return s;
}

static unsigned char *eval_binary(eval_ctx *c, const select_node *n)
{
    unsigned char *a = eval_node(c, n->a);
    unsigned char *b = a ? eval_node(c, n->b) : NULL;
    if (!b) {
        free(a);
        return NULL;
    }
    for (int i = 0; i < c->g->nfn; i++)
        a[i] = n->kind == SEL_UNION       ? (a[i] | b[i])
               : n->kind == SEL_INTERSECT ? (a[i] & b[i])
                                          : (a[i] & !b[i]);
    free(b);
    return a;
}

static unsigned char *eval_node(eval_ctx *c, const select_node *n)
{
    unsigned char *s;
    switch (n->kind) {
    case SEL_CALLERS:
    case SEL_CALLEES: return eval_closure(c, n);
    case SEL_UNION:
    case SEL_INTERSECT:
    case SEL_MINUS: return eval_binary(c, n);
    case SEL_NOT:
        s = eval_node(c, n->a);
        for (int i = 0; s && i < c->g->nfn; i++)
            s[i] = !s[i];
        return s;
    case SEL_REF:
        s = new_set(c);
        if (s && c->g->nfn > 0)
            memcpy(s, c->defs[n->num], (size_t)c->g->nfn);
        return s;
    case SEL_FILTER: return eval_filter(c, n);
    default: return eval_each(c, n);
    }
}

/* What the evaluation relies on: names, and calls between functions of g. */
static int check_graph(const select_graph *g, char *err, size_t errlen)
{
    if (g->nfn < 0 || g->ncalls < 0 || (g->nfn > 0 && !g->fn) || (g->ncalls > 0 && !g->calls)) {
        select_err(err, errlen, "bad graph: %d functions, %d calls", g->nfn, g->ncalls);
        return -1;
    }
    for (int i = 0; i < g->nfn; i++)
        if (!g->fn[i].name) {
            select_err(err, errlen, "bad graph: function %d has no name", i);
            return -1;
        }
    for (int i = 0; i < g->ncalls; i++)
        for (int k = 0; k < 2; k++)
            if (g->calls[i][k] < 0 || g->calls[i][k] >= g->nfn) {
                select_err(err, errlen, "bad graph: call %d names function %d of %d", i, g->calls[i][k],
                           g->nfn);
                return -1;
            }
    return 0;
}

static int eval_defs(eval_ctx *c, const select_expr *e)
{
    c->defs = calloc((size_t)(e->ndefs ? e->ndefs : 1), sizeof *c->defs);
    if (!c->defs) {
        select_err(c->err, c->errlen, "out of memory");
        return -1;
    }
    for (int i = 0; i < e->ndefs; i++)
        if (!(c->defs[i] = eval_node(c, e->defs[i])))
            return -1;
    return 0;
}

int select_eval(const select_expr *e, const select_graph *g, unsigned char *chosen, char *err, size_t errlen)
{
    select_err(err, errlen, "%s", "");
    if (!e || !g || (!chosen && g->nfn > 0)) {
        select_err(err, errlen, "no selection, graph or result array");
        return -1;
    }
    if (check_graph(g, err, errlen) != 0)
        return -1;
    eval_ctx c = { .g = g, .err = err, .errlen = errlen };
    unsigned char *s = eval_defs(&c, e) == 0 ? eval_node(&c, e->root) : NULL;
    int ok = s != NULL;
    if (ok && g->nfn > 0)
        memcpy(chosen, s, (size_t)g->nfn);
    free(s);
    for (int i = 0; c.defs && i < e->ndefs; i++)
        free(c.defs[i]);
    free(c.defs);
    select_adj_free(&c.callees);
    select_adj_free(&c.callers);
    return ok ? 0 : -1;
}
