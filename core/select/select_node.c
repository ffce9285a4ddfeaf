#include "core/select/select_node.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

select_node *select_node_new(enum select_kind kind, select_node *a, select_node *b)
{
    select_node *n = calloc(1, sizeof *n);
    if (!n) {
        select_node_free(a);
        select_node_free(b);
        return NULL;
    }
    n->kind = kind;
    n->a = a;
    n->b = b;
    int da = a ? a->depth : 0, db = b ? b->depth : 0;
    n->depth = 1 + (da > db ? da : db);
    return n;
}

static int has_regex(enum select_kind k)
{
    return k == SEL_NAME || k == SEL_MANGLED || k == SEL_FILE || k == SEL_MODULE;
}

/* A regex node is made with its regex compiled (select_parse.c), so every
 * such node here holds one. */
void select_node_free(select_node *n)
{
    if (!n)
        return;
    select_node_free(n->a);
    select_node_free(n->b);
    if (has_regex(n->kind))
        regfree(&n->re);
    free(n->literal);
    select_filter_free(n->filter);
    free(n);
}

static void free_block(select_block *b)
{
    for (int i = 0; i < b->n; i++) {
        free(b->rules[i].pattern);
        free(b->rules[i].literal);
    }
    free(b->rules);
    free(b->wild);
    free(b->slots);
}

void select_filter_free(select_filter *f)
{
    if (!f)
        return;
    free_block(&f->file);
    free_block(&f->region);
    free(f);
}

void select_free(select_expr *e)
{
    if (!e)
        return;
    for (int i = 0; i < e->ndefs; i++) {
        select_node_free(e->defs[i]);
        free(e->def_names[i]);
    }
    free(e->defs);
    free(e->def_names);
    select_node_free(e->root);
    free(e);
}

void select_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static unsigned node_inputs(const select_node *n)
{
    if (!n)
        return 0;
    unsigned u = node_inputs(n->a) | node_inputs(n->b);
    if (n->kind == SEL_CALLERS || n->kind == SEL_CALLEES)
        u |= SELECT_USES_CALLS;
    if (n->kind == SEL_MPI_PATH)
        u |= SELECT_USES_MPI_PATH;
    return u;
}

static int node_literals(const select_expr *e, const select_node *n, const char **out, int max, int k,
                         int depth)
{
    if (!n || depth > SELECT_MAX_DEPTH)
        return k;
    switch (n->kind) {
    case SEL_NAME:
    case SEL_MANGLED:
        if (n->literal && k++ < max)
            out[k - 1] = n->literal;
        return k;
    case SEL_FILTER:
        for (int i = 0; i < n->filter->region.n; i++) {
            const select_rule *r = &n->filter->region.rules[i];
            if (!r->exclude && r->literal && k++ < max)
                out[k - 1] = r->literal;
        }
        return k;
    case SEL_REF:
        return n->num < (unsigned long long)e->ndefs
                   ? node_literals(e, e->defs[n->num], out, max, k, depth + 1)
                   : k;
    case SEL_MINUS: /* what b takes is taken away */
    case SEL_CALLERS:
    case SEL_CALLEES: return node_literals(e, n->a, out, max, k, depth + 1);
    case SEL_UNION:
    case SEL_INTERSECT:
        return node_literals(e, n->b, out, max, node_literals(e, n->a, out, max, k, depth + 1), depth + 1);
    default: /* SEL_NOT takes away what its operand takes */ return k;
    }
}

int select_literal_names(const select_expr *e, const char **out, int max)
{
    return e ? node_literals(e, e->root, out, max, 0, 0) : 0;
}

/* Unused definitions count too: cheap to over-report, and they cost an
 * evaluation each. */
unsigned select_inputs(const select_expr *e)
{
    if (!e)
        return 0;
    unsigned u = node_inputs(e->root);
    for (int i = 0; i < e->ndefs; i++)
        u |= node_inputs(e->defs[i]);
    return u;
}
