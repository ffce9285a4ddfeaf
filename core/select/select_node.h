/*
 * select_node.h - inside a select_expr (select.h): the tree the language's
 * parser and the filter file reader build and select_eval walks, and the
 * one-line error helpers they share. Private to core/select/.
 *
 * A select_expr is a list of named definitions (each may use only those
 * before it) and a root; every node belongs to exactly one of them, so
 * freeing is a plain walk. A reference to a definition is a node of its
 * own (SEL_REF) holding the definition's index.
 */
#ifndef HPROF_SELECT_NODE_H
#define HPROF_SELECT_NODE_H

#include <regex.h>
#include <stddef.h>

#include "core/select/select.h"

enum select_kind {
    SEL_ALL,
    SEL_NONE,
    SEL_MPI_PATH,
    SEL_NAME,
    SEL_MANGLED,
    SEL_FILE,
    SEL_MODULE,   /* re */
    SEL_MIN_SIZE, /* num: bytes */
    SEL_CALLERS,
    SEL_CALLEES, /* a, num: depth (SELECT_ANY_DEPTH) */
    SEL_UNION,
    SEL_INTERSECT,
    SEL_MINUS,  /* a, b */
    SEL_NOT,    /* a */
    SEL_REF,    /* num: definition index */
    SEL_FILTER, /* filter: Score-P rules */
};

#define SELECT_ANY_DEPTH (~0ull)

/* Deeper selections are refused when parsed: parsing and evaluating
 * recurse once a level, and the runtime may evaluate on a thread with a
 * small stack. */
#define SELECT_MAX_DEPTH 256

typedef struct select_rule { /* one pattern of an INCLUDE or EXCLUDE rule */
    char *pattern;           /* fnmatch() pattern, escapes kept */
    char *literal;           /* the name it matches when it has no wildcard, else NULL */
    unsigned char exclude;   /* 1: EXCLUDE, 0: INCLUDE */
    unsigned char mangled;   /* 1: after MANGLED: on the mangled name */
} select_rule;

typedef struct select_block { /* one block's rules, in order, and their index */
    select_rule *rules;
    int n, cap;
    int *wild, nwild; /* the rules with wildcards, in order */
    int *slots;       /* literal rules by (literal, mangled): last rule + 1, 0: empty */
    unsigned mask;    /* slots - 1, a power of two minus one */
} select_block;

typedef struct select_filter { /* a Score-P filter file's two blocks */
    select_block file, region;
} select_filter;

typedef struct select_node {
    enum select_kind kind;
    int depth; /* 1 + its deepest operand's */
    struct select_node *a, *b;
    regex_t re;    /* SEL_NAME .. SEL_MODULE */
    char *literal; /* SEL_NAME, SEL_MANGLED: the one name re denotes ("^solve$", "^ns::f\\("), else NULL */
    unsigned long long num;
    select_filter *filter;
} select_node;

struct select_expr {
    select_node *root;
    select_node **defs; /* named definitions, in order */
    char **def_names;
    int ndefs;
};

select_node *select_node_new(enum select_kind kind, select_node *a, select_node *b);
void select_node_free(select_node *n);
void select_filter_free(select_filter *f);

/* Writes one line into err (if any room). */
void select_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
