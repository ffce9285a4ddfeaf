/*
 * select_parse.c - the selection language (grammar in README.md,
 * "Choosing functions to measure exactly"): recursive descent, one token
 * of lookahead (two where a definition "NAME =" may start). The first
 * error wins; every node made so far is freed.
 *
 *   selection  = { definition } expr
 *   definition = NAME "=" expr [ ";" ]
 *   expr       = term { "|" term }                  union
 *   term       = factor { ( "&" | "-" ) factor }    intersection, difference
 *   factor     = "!" factor | primary               complement
 *   primary    = "(" expr ")" | "%" NAME | "%%" | selector
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/select/select.h"
#include "core/select/select_lex.h"
#include "core/select/select_node.h"
#include "core/select/select_regex.h"

typedef struct parser {
    const char *text, *pos;
    select_token tok;
    select_expr *e; /* the definitions so far */
    char *err;
    size_t errlen;
    int failed;
    int nesting; /* '(', '!' and closures being parsed */
} parser;

static void advance(parser *p)
{
    free(p->tok.text);
    select_lex_next(p->text, &p->pos, &p->tok, p->err, p->errlen);
    if (p->tok.kind == TOK_BAD)
        p->failed = 1;
}

/* The first error wins: later ones are consequences. */
static select_node *fail_at(parser *p, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static select_node *fail_at(parser *p, const char *at, const char *fmt, ...)
{
    if (p->failed)
        return NULL;
    char where[48], what[400];
    select_lex_where(p->text, at, where, sizeof where);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    select_err(p->err, p->errlen, "%s: %s", where, what);
    p->failed = 1;
    return NULL;
}

/* How the current token reads in a message. */
static const char *shown(const parser *p, char *buf, size_t len)
{
    if (p->tok.kind == TOK_END)
        return "the end";
    snprintf(buf, len, "'%.*s'", (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.at);
    return buf;
}

static select_node *fail_here(parser *p, const char *what_expected)
{
    char buf[64];
    return fail_at(p, p->tok.at, "expected %s, found %s", what_expected, shown(p, buf, sizeof buf));
}

static select_node *too_deep(parser *p)
{
    return fail_at(p, p->tok.at,
                   "the selection is nested too deeply (over %d levels; join many "
                   "names in one regex, or use a filter file)",
                   SELECT_MAX_DEPTH);
}

/* Combines two operands, refusing a tree deeper than SELECT_MAX_DEPTH. */
static select_node *combine(parser *p, enum select_kind k, select_node *a, select_node *b)
{
    select_node *n = select_node_new(k, a, b);
    if (n && n->depth > SELECT_MAX_DEPTH) {
        select_node_free(n);
        return too_deep(p);
    }
    return n;
}

static int expect(parser *p, enum select_tok kind, const char *what)
{
    if (p->tok.kind != kind) {
        fail_here(p, what);
        return -1;
    }
    advance(p);
    return p->failed ? -1 : 0;
}

static select_node *parse_expr(parser *p);
static select_node *parse_selector(parser *p);

static select_node *parse_ref(parser *p)
{
    for (int i = 0; i < p->e->ndefs; i++) {
        if (strcmp(p->e->def_names[i], p->tok.text) == 0) {
            select_node *n = select_node_new(SEL_REF, NULL, NULL);
            if (n)
                n->num = (unsigned long long)i;
            advance(p);
            return n ? n : fail_at(p, p->tok.at, "out of memory");
        }
    }
    return fail_at(p, p->tok.at, "%%%s is not defined (define it before its use: NAME = ...)", p->tok.text);
}

static select_node *parse_parens(parser *p)
{
    const char *open = p->tok.at;
    if (p->nesting >= SELECT_MAX_DEPTH)
        return too_deep(p);
    advance(p);
    p->nesting++;
    select_node *n = parse_expr(p);
    p->nesting--;
    if (!n)
        return NULL;
    if (p->tok.kind != TOK_RPAREN) {
        select_node_free(n);
        return p->tok.kind == TOK_END ? fail_at(p, open, "'(' is never closed")
                                      : fail_here(p, "')' or an operator (| & -)");
    }
    advance(p);
    return n;
}

static select_node *parse_primary(parser *p)
{
    switch (p->tok.kind) {
    case TOK_LPAREN: return parse_parens(p);
    case TOK_REF: return parse_ref(p);
    case TOK_ALL: advance(p); return select_node_new(SEL_ALL, NULL, NULL);
    case TOK_NAME: return parse_selector(p);
    case TOK_RPAREN: return fail_at(p, p->tok.at, "')' without a '(' before it");
    default: return fail_here(p, "a selector, '(', '!' or %NAME");
    }
}

static select_node *parse_factor(parser *p)
{
    if (p->tok.kind != TOK_NOT)
        return parse_primary(p);
    if (p->nesting >= SELECT_MAX_DEPTH)
        return too_deep(p);
    advance(p);
    p->nesting++;
    select_node *a = parse_factor(p);
    p->nesting--;
    return a ? combine(p, SEL_NOT, a, NULL) : NULL;
}

static select_node *parse_term(parser *p)
{
    select_node *n = parse_factor(p);
    while (n && (p->tok.kind == TOK_AND || p->tok.kind == TOK_MINUS)) {
        enum select_kind k = p->tok.kind == TOK_AND ? SEL_INTERSECT : SEL_MINUS;
        advance(p);
        select_node *b = parse_factor(p);
        if (!b) {
            select_node_free(n);
            return NULL;
        }
        n = combine(p, k, n, b);
    }
    return n;
}

static select_node *parse_expr(parser *p)
{
    select_node *n = parse_term(p);
    while (n && p->tok.kind == TOK_OR) {
        advance(p);
        select_node *b = parse_term(p);
        if (!b) {
            select_node_free(n);
            return NULL;
        }
        n = combine(p, SEL_UNION, n, b);
    }
    if (!n && !p->failed)
        fail_at(p, p->tok.at, "out of memory");
    return n;
}

/* ---- selectors ------------------------------------------------------- */

/* Argument shapes: "" none (parentheses optional), "s" a string, "n" a
 * number, "e" an expression with an optional number after it. */
static const struct selector {
    const char *name, *args, *usage;
    enum select_kind kind;
} selectors[] = {
    { "all", "", "all", SEL_ALL },
    { "none", "", "none", SEL_NONE },
    { "mpi_path", "", "mpi_path", SEL_MPI_PATH },
    { "name", "s", "name(\"REGEX\")", SEL_NAME },
    { "mangled", "s", "mangled(\"REGEX\")", SEL_MANGLED },
    { "file", "s", "file(\"REGEX\")", SEL_FILE },
    { "module", "s", "module(\"REGEX\")", SEL_MODULE },
    { "minsize", "n", "minsize(BYTES)", SEL_MIN_SIZE },
    { "callers", "e", "callers(SELECTION) or callers(SELECTION, DEPTH)", SEL_CALLERS },
    { "callees", "e", "callees(SELECTION) or callees(SELECTION, DEPTH)", SEL_CALLEES },
    { "filter", "s", "filter(\"SCOREP_FILTER_FILE\")", SEL_FILTER },
};
#define NSELECTORS ((int)(sizeof selectors / sizeof selectors[0]))

static const struct selector *find_selector(const char *name)
{
    for (int i = 0; i < NSELECTORS; i++)
        if (strcmp(selectors[i].name, name) == 0)
            return &selectors[i];
    return NULL;
}

static select_node *unknown_selector(parser *p)
{
    char known[256] = "";
    for (int i = 0; i < NSELECTORS; i++) {
        strcat(known, i ? ", " : "");
        strcat(known, selectors[i].name);
    }
    return fail_at(p, p->tok.at, "unknown selector '%s' (selectors: %s)", p->tok.text, known);
}

/* The one name regex re denotes, "^NAME$" or "^NAME\\(" (malloc'd), or
 * NULL. */
static char *literal_of(const char *re)
{
    if (re[0] != '^')
        return NULL;
    size_t n = 0;
    while (isalnum((unsigned char)re[1 + n]) || re[1 + n] == '_' || re[1 + n] == '~' ||
           (re[1 + n] == ':' && re[2 + n] == ':' && ++n))
        n++;
    const char *end = re + 1 + n;
    if (n == 0 || !(strcmp(end, "$") == 0 || strcmp(end, "\\(") == 0))
        return NULL;
    return strndup(re + 1, n);
}

static select_node *regex_node(parser *p, enum select_kind kind, const char *at)
{
    regex_t re;
    char bounded[200];
    if (select_regex_check(p->tok.text, bounded, sizeof bounded) != 0)
        return fail_at(p, at, "regular expression \"%s\" refused: %s", p->tok.text, bounded);
    int rc = regcomp(&re, p->tok.text, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char why[160];
        regerror(rc, &re, why, sizeof why);
        return fail_at(p, at, "bad regular expression \"%s\": %s", p->tok.text, why);
    }
    select_node *n = select_node_new(kind, NULL, NULL);
    if (!n) {
        regfree(&re);
        return fail_at(p, at, "out of memory");
    }
    n->re = re;
    if (kind == SEL_NAME || kind == SEL_MANGLED)
        n->literal = literal_of(p->tok.text);
    return n;
}

static select_node *filter_node(parser *p, const char *at)
{
    char why[400];
    select_expr *f = select_from_scorep_filter(p->tok.text, why, sizeof why);
    if (!f)
        return fail_at(p, at, "filter(): %s", why);
    select_node *n = f->root; /* a lone SEL_FILTER node */
    f->root = NULL;
    select_free(f);
    return n;
}

static select_node *string_arg(parser *p, const struct selector *s)
{
    if (p->tok.kind != TOK_STRING)
        return fail_at(p, p->tok.at, "expected a quoted string: %s", s->usage);
    const char *at = p->tok.at;
    select_node *n = s->kind == SEL_FILTER ? filter_node(p, at) : regex_node(p, s->kind, at);
    if (n)
        advance(p);
    return n;
}

static select_node *number_arg(parser *p, const struct selector *s)
{
    if (p->tok.kind != TOK_NUMBER)
        return fail_at(p, p->tok.at, "expected a number: %s", s->usage);
    select_node *n = select_node_new(s->kind, NULL, NULL);
    if (n)
        n->num = p->tok.num;
    advance(p);
    return n;
}

static select_node *closure_args(parser *p, const struct selector *s)
{
    if (p->nesting >= SELECT_MAX_DEPTH)
        return too_deep(p);
    p->nesting++;
    select_node *a = parse_expr(p);
    p->nesting--;
    if (!a)
        return NULL;
    select_node *n = combine(p, s->kind, a, NULL);
    if (!n)
        return NULL;
    n->num = SELECT_ANY_DEPTH;
    if (p->tok.kind == TOK_COMMA) {
        advance(p);
        if (p->tok.kind != TOK_NUMBER) {
            select_node_free(n);
            return fail_at(p, p->tok.at, "expected a depth (a number): %s", s->usage);
        }
        n->num = p->tok.num;
        advance(p);
    }
    return n;
}

static select_node *selector_args(parser *p, const struct selector *s)
{
    const char *open = p->tok.at;
    if (expect(p, TOK_LPAREN, "'('") != 0)
        return NULL;
    select_node *n = s->args[0] == 's'   ? string_arg(p, s)
                     : s->args[0] == 'n' ? number_arg(p, s)
                                         : closure_args(p, s);
    if (n && p->tok.kind != TOK_RPAREN) {
        select_node_free(n);
        return p->tok.kind == TOK_END ? fail_at(p, open, "'(' is never closed")
                                      : fail_at(p, p->tok.at, "expected ')': %s", s->usage);
    }
    if (n)
        advance(p);
    return n;
}

static select_node *parse_selector(parser *p)
{
    const struct selector *s = find_selector(p->tok.text);
    if (!s)
        return unknown_selector(p);
    advance(p);
    if (p->failed)
        return NULL;
    if (s->args[0] != '\0')
        return selector_args(p, s);
    if (p->tok.kind == TOK_LPAREN) { /* all() reads as all */
        advance(p);
        if (expect(p, TOK_RPAREN, "')' (it takes no arguments)") != 0)
            return NULL;
    }
    select_node *n = select_node_new(s->kind, NULL, NULL);
    return n ? n : fail_at(p, p->tok.at, "out of memory");
}

/* ---- definitions and the whole selection ------------------------------ */

/* At NAME '=': two tokens of lookahead, without consuming. */
static int at_definition(const parser *p)
{
    if (p->tok.kind != TOK_NAME)
        return 0;
    const char *q = p->pos;
    select_token next;
    select_lex_next(p->text, &q, &next, NULL, 0);
    free(next.text);
    return next.kind == TOK_EQUALS;
}

static int add_definition(parser *p, char *name, select_node *n)
{
    select_expr *e = p->e;
    select_node **defs = realloc(e->defs, sizeof *defs * (size_t)(e->ndefs + 1));
    if (defs)
        e->defs = defs;
    char **names = defs ? realloc(e->def_names, sizeof *names * (size_t)(e->ndefs + 1)) : NULL;
    if (names)
        e->def_names = names;
    if (!defs || !names) {
        free(name);
        select_node_free(n);
        fail_at(p, p->tok.at, "out of memory");
        return -1;
    }
    e->defs[e->ndefs] = n;
    e->def_names[e->ndefs++] = name;
    return 0;
}

static int parse_definition(parser *p)
{
    const char *at = p->tok.at;
    for (int i = 0; i < p->e->ndefs; i++)
        if (strcmp(p->e->def_names[i], p->tok.text) == 0) {
            fail_at(p, at, "'%s' is defined twice", p->tok.text);
            return -1;
        }
    char *name = p->tok.text;
    p->tok.text = NULL; /* kept as the definition's name */
    advance(p);         /* the name */
    advance(p);         /* '=' */
    select_node *n = p->failed ? NULL : parse_expr(p);
    if (!n) {
        free(name);
        return -1;
    }
    if (add_definition(p, name, n) != 0)
        return -1;
    if (p->tok.kind == TOK_SEMI)
        advance(p);
    return p->failed ? -1 : 0;
}

static select_node *parse_selection(parser *p)
{
    if (p->tok.kind == TOK_END) {
        select_err(p->err, p->errlen, "empty selection (nothing to select: write e.g. name(\"^solve$\"))");
        p->failed = 1;
        return NULL;
    }
    while (at_definition(p))
        if (parse_definition(p) != 0)
            return NULL;
    select_node *root = parse_expr(p);
    if (root && p->tok.kind != TOK_END) {
        select_node_free(root);
        char buf[64];
        if (p->tok.kind == TOK_RPAREN)
            return fail_at(p, p->tok.at, "')' without a '(' before it");
        return fail_at(p, p->tok.at, "unexpected %s after the selection (join selections with | & -)",
                       shown(p, buf, sizeof buf));
    }
    return root;
}

select_expr *select_parse(const char *text, char *err, size_t errlen)
{
    select_err(err, errlen, "%s", "");
    if (!text) {
        select_err(err, errlen, "empty selection (nothing to select: write e.g. name(\"^solve$\"))");
        return NULL;
    }
    parser p = { .text = text, .pos = text, .err = err, .errlen = errlen };
    p.e = calloc(1, sizeof *p.e);
    if (!p.e) {
        select_err(err, errlen, "out of memory");
        return NULL;
    }
    advance(&p);
    select_node *root = p.failed ? NULL : parse_selection(&p);
    free(p.tok.text);
    if (!root) {
        select_free(p.e);
        return NULL;
    }
    p.e->root = root;
    return p.e;
}
