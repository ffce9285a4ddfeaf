#include "core/select/select_regex.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_NEST 256
#define HUGE_SIZE (1ull << 40) /* sizes saturate here: only "too large" matters */

/* One group being read: the positions it holds so far, and the last
 * atom's (what a repeat after it multiplies). */
typedef struct group {
    unsigned long long total, last;
} group;

static unsigned long long sat_mul(unsigned long long a, unsigned long long b)
{
    return b && a > HUGE_SIZE / b ? HUGE_SIZE : a * b;
}

static void add_atom(group *g, unsigned long long size)
{
    g->total = g->total + size > HUGE_SIZE ? HUGE_SIZE : g->total + size;
    g->last = size;
}

/* The last atom repeated: it stands copies times in the expansion. */
static void repeat_last(group *g, unsigned long long copies)
{
    unsigned long long grown = sat_mul(g->last, copies);
    g->total = g->total - g->last + grown > HUGE_SIZE ? HUGE_SIZE : g->total - g->last + grown;
    g->last = grown;
}

/* A bracket expression from its '[': the character after it ends. */
static const char *skip_bracket(const char *p)
{
    p++;
    if (*p == '^')
        p++;
    if (*p == ']')
        p++;
    while (*p && *p != ']') {
        if (p[0] == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
            char close = p[1];
            for (p += 2; *p && !(p[0] == close && p[1] == ']'); p++)
                ;
            p += *p ? 2 : 0;
        } else {
            p++;
        }
    }
    return *p ? p + 1 : p;
}

/* {m}, {m,} or {m,n} at p: the copies it makes (n, or m + 1 when open),
 * and the character after it; 0 copies when it is no bound. */
static const char *bound(const char *p, unsigned long long *copies)
{
    char *end;
    unsigned long long m = strtoull(p + 1, &end, 10), n = m;
    *copies = 0;
    if (end == p + 1 || !isdigit((unsigned char)p[1]))
        return p + 1;
    if (*end == ',') {
        const char *q = end + 1;
        n = isdigit((unsigned char)*q) ? strtoull(q, &end, 10) : m + 1;
        if (!isdigit((unsigned char)*q))
            end = (char *)q;
    }
    if (*end != '}')
        return p + 1;
    *copies = n > m ? n : m;
    return end + 1;
}

/* The positions of re with its repeats expanded (expand 1) or each taken
 * once (expand 0); *backref the digit of its first back-reference, or 0. */
static unsigned long long positions(const char *re, int expand, char *backref)
{
    group stack[MAX_NEST + 1] = { { 0, 0 } };
    int depth = 0;
    *backref = 0;
    for (const char *p = re; *p;) {
        unsigned long long copies = 0;
        if (p[0] == '\\' && p[1] >= '1' && p[1] <= '9' && !*backref) {
            *backref = p[1];
            p += 2;
        } else if (p[0] == '\\') {
            add_atom(&stack[depth], 1);
            p += p[1] ? 2 : 1;
        } else if (*p == '[') {
            add_atom(&stack[depth], 1);
            p = skip_bracket(p);
        } else if (*p == '(' && depth < MAX_NEST) {
            stack[++depth] = (group){ 0, 0 };
            p++;
        } else if (*p == ')' && depth > 0) {
            unsigned long long inner = stack[depth--].total;
            add_atom(&stack[depth], inner + 1);
            p++;
        } else if (*p == '{') {
            p = bound(p, &copies);
            if (copies && expand)
                repeat_last(&stack[depth], copies);
        } else if (*p == '+') { /* glibc reads x+ as xx* */
            repeat_last(&stack[depth], expand ? 2 : 1);
            p++;
        } else {
            add_atom(&stack[depth], 1);
            p++;
        }
    }
    unsigned long long total = 0;
    for (int d = 0; d <= depth; d++)
        total = total + stack[d].total > HUGE_SIZE ? HUGE_SIZE : total + stack[d].total;
    return total;
}

int select_regex_check(const char *re, char *why, size_t len)
{
    char backref;
    unsigned long long expanded = positions(re, 1, &backref), plain = positions(re, 0, &backref);
    if (backref) {
        snprintf(why, len, "back-references (\\%c) are not taken: their matching time can grow exponentially",
                 backref);
        return -1;
    }
    if (expanded - plain > SELECT_REGEX_MAX_POSITIONS) {
        snprintf(why, len,
                 "its repeats add over %d positions once expanded, more than hprof lets a regex compile to "
                 "(write {m,n} with smaller bounds, or * and +)",
                 SELECT_REGEX_MAX_POSITIONS);
        return -1;
    }
    return 0;
}
