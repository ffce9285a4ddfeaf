#include "core/select/select_lex.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/select/select_node.h"

void select_lex_where(const char *text, const char *at, char *buf, size_t len)
{
    int line = 1, col = 1, lines = strchr(text, '\n') != NULL;
    for (const char *p = text; p < at && *p; p++) {
        col++;
        if (*p == '\n') {
            line++;
            col = 1;
        }
    }
    if (lines)
        snprintf(buf, len, "line %d, column %d", line, col);
    else
        snprintf(buf, len, "column %d", col);
}

static void bad(select_token *tok, const char *text, char *err, size_t errlen, const char *what)
{
    char where[48];
    select_lex_where(text, tok->at, where, sizeof where);
    select_err(err, errlen, "%s: %s", where, what);
    tok->kind = TOK_BAD;
}

static const char *skip_space(const char *p)
{
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (*p != '#')
            return p;
        while (*p && *p != '\n')
            p++;
    }
}

static int is_name_start(char c)
{
    return isalpha((unsigned char)c) || c == '_';
}
static int is_name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static const char *read_name(const char *p, select_token *tok)
{
    const char *s = p;
    while (is_name_char(*p))
        p++;
    tok->text = strndup(s, (size_t)(p - s));
    return p;
}

/* Unescapes "..." starting at p (the quote); NULL when never closed. */
static const char *read_string(const char *p, select_token *tok)
{
    const char *s = ++p;
    while (*p && *p != '"')
        p += (p[0] == '\\' && p[1]) ? 2 : 1;
    if (!*p)
        return NULL;
    char *out = malloc((size_t)(p - s) + 1), *o = out;
    if (!out)
        return p + 1;
    for (const char *q = s; q < p; q++) {
        if (q[0] == '\\' && (q[1] == '"' || q[1] == '\\'))
            q++;
        *o++ = *q;
    }
    *o = '\0';
    tok->text = out;
    return p + 1;
}

static const char *read_number(const char *p, select_token *tok)
{
    char *end;
    errno = 0;
    tok->num = strtoull(p, &end, 10);
    tok->kind = errno == ERANGE ? TOK_BAD : TOK_NUMBER;
    return end;
}

static enum select_tok punct(char c)
{
    switch (c) {
    case '(': return TOK_LPAREN;
    case ')': return TOK_RPAREN;
    case ',': return TOK_COMMA;
    case '|': return TOK_OR;
    case '&': return TOK_AND;
    case '-': return TOK_MINUS;
    case '!': return TOK_NOT;
    case '=': return TOK_EQUALS;
    case ';': return TOK_SEMI;
    default: return TOK_BAD;
    }
}

/* The token's kind and end, tok->text/num filled; NULL: a string never
 * closed. */
static const char *scan(const char *p, select_token *tok)
{
    if (!*p) {
        tok->kind = TOK_END;
        return p;
    }
    if (is_name_start(*p)) {
        tok->kind = TOK_NAME;
        return read_name(p, tok);
    }
    if (isdigit((unsigned char)*p))
        return read_number(p, tok);
    if (*p == '"') {
        tok->kind = TOK_STRING;
        return read_string(p, tok);
    }
    if (p[0] == '%' && p[1] == '%') {
        tok->kind = TOK_ALL;
        return p + 2;
    }
    if (p[0] == '%' && is_name_start(p[1])) {
        tok->kind = TOK_REF;
        return read_name(p + 1, tok);
    }
    tok->kind = punct(*p);
    return p + 1;
}

void select_lex_next(const char *text, const char **pos, select_token *tok, char *err, size_t errlen)
{
    memset(tok, 0, sizeof *tok);
    const char *p = skip_space(*pos);
    tok->at = p;
    const char *end = scan(p, tok);
    if (!end) {
        bad(tok, text, err, errlen, "the string is never closed (a '\"' is missing)");
        *pos = p + strlen(p);
        return;
    }
    tok->len = (size_t)(end - p);
    *pos = end;
    int needs_text = tok->kind == TOK_NAME || tok->kind == TOK_REF || tok->kind == TOK_STRING;
    if (needs_text && !tok->text)
        bad(tok, text, err, errlen, "out of memory");
    else if (tok->kind == TOK_BAD && isdigit((unsigned char)*p))
        bad(tok, text, err, errlen, "number too large");
    else if (tok->kind == TOK_BAD && *p == '%')
        bad(tok, text, err, errlen, "'%' must be followed by a definition's name, or be '%%'");
    else if (tok->kind == TOK_BAD) {
        char what[64];
        snprintf(what, sizeof what, "unexpected character '%c'", *p);
        bad(tok, text, err, errlen, what);
    }
}
