/*
 * select_lex.h - the selection language's tokens (select_parse.c reads
 * them). Whitespace and newlines separate tokens; '#' starts a comment to
 * the end of the line. Private to core/select/.
 *
 *   NAME     [A-Za-z_][A-Za-z0-9_]*
 *   NUMBER   [0-9]+
 *   STRING   "..." ; \" is a quote, \\ a backslash, any other \x stays
 *            \x (so regex escapes such as \( need no doubling)
 *   REF      %NAME (a definition), ALL: %% (every function, as in CaPI)
 *   and the characters ( ) , | & - ! = ;
 */
#ifndef HPROF_SELECT_LEX_H
#define HPROF_SELECT_LEX_H

#include <stddef.h>

enum select_tok {
    TOK_END,
    TOK_NAME,
    TOK_NUMBER,
    TOK_STRING,
    TOK_REF,
    TOK_ALL,
    TOK_LPAREN,
    TOK_RPAREN,
    TOK_COMMA,
    TOK_OR,
    TOK_AND,
    TOK_MINUS,
    TOK_NOT,
    TOK_EQUALS,
    TOK_SEMI,
    TOK_BAD,
};

typedef struct select_token {
    enum select_tok kind;
    const char *at;         /* where it starts in the text */
    size_t len;             /* its length there */
    char *text;             /* NAME, REF: the name; STRING: unescaped (malloc'ed) */
    unsigned long long num; /* NUMBER */
} select_token;

/* Reads the token at *pos and moves *pos past it. TOK_BAD with err set
 * (an unknown character, a string never closed, a number too large, no
 * memory). The caller frees tok->text. */
void select_lex_next(const char *text, const char **pos, select_token *tok, char *err, size_t errlen);

/* "column C" or "line L, column C" (text with several lines) of at. */
void select_lex_where(const char *text, const char *at, char *buf, size_t len);

#endif
