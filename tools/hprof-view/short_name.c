/*
 * short_name.c - shortening demangled C++ names (see short_name.h).
 *
 * One pass over the name keeps the characters outside <...> and (...),
 * except where the brackets belong to a name: "operator<<", "operator()",
 * "(anonymous namespace)". Then trailing qualifiers (const, &, noexcept)
 * and the return type (what comes before the last space outside
 * brackets) are cut.
 */
#include "tools/hprof-view/short_name.h"

#include <stdlib.h>
#include <string.h>

static const char *const operators[] = {
    "<<=", ">>=", "->*", "<=>", "()", "[]", "<<", ">>", "<=", ">=", "->", "<", ">",
};

/* Length of the operator token after "operator" at s (0 if none). */
static size_t operator_token(const char *s)
{
    for (size_t i = 0; i < sizeof operators / sizeof *operators; i++)
        if (strncmp(s, operators[i], strlen(operators[i])) == 0)
            return strlen(operators[i]);
    return 0;
}

static int is_word_start(const char *full, const char *s)
{
    return s == full || !(s[-1] == '_' || (s[-1] >= 'a' && s[-1] <= 'z') || (s[-1] >= 'A' && s[-1] <= 'Z') ||
                          (s[-1] >= '0' && s[-1] <= '9'));
}

/* Copies full without bracketed arguments into out (as long as full). */
static void drop_arguments(const char *full, char *out, int keep_templates)
{
    size_t k = 0;
    int depth = 0;
    for (const char *s = full; *s;) {
        if (depth == 0 && strncmp(s, "operator", 8) == 0 && is_word_start(full, s)) {
            size_t n = 8 + operator_token(s + 8);
            memcpy(out + k, s, n);
            k += n, s += n;
            continue;
        }
        if (depth == 0 && strncmp(s, "(anonymous namespace)", 21) == 0) {
            memcpy(out + k, s, 21);
            k += 21, s += 21;
            continue;
        }
        char c = *s++;
        if (c == '(' || (c == '<' && !keep_templates))
            depth++;
        else if ((c == ')' || (c == '>' && !keep_templates)) && depth > 0)
            depth--;
        else if (depth == 0)
            out[k++] = c;
    }
    out[k] = '\0';
}

static int ends_with(const char *s, size_t len, const char *tail)
{
    size_t n = strlen(tail);
    return len >= n && strncmp(s + len - n, tail, n) == 0;
}

/* Cuts trailing qualifiers and the leading return type, in place. */
static void drop_qualifiers_and_type(char *s)
{
    static const char *const quals[] = { " const", " volatile", " &&", " &", " noexcept", " " };
    size_t len = strlen(s);
    for (int again = 1; again;) {
        again = 0;
        for (size_t i = 0; i < sizeof quals / sizeof *quals; i++)
            if (ends_with(s, len, quals[i])) {
                len -= strlen(quals[i]);
                s[len] = '\0';
                again = 1;
            }
    }
    /* the return type ends at the last space outside brackets that does not
     * follow "operator" (operator new, operator delete[]) */
    int depth = 0;
    size_t cut = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '(' || c == '<' || c == '{' || c == '[')
            depth++;
        else if ((c == ')' || c == '>' || c == '}' || c == ']') && depth > 0)
            depth--;
        else if (c == ' ' && depth == 0 && !ends_with(s, i, "operator"))
            cut = i + 1;
    }
    if (cut > 0 && cut < len)
        memmove(s, s + cut, len - cut + 1);
}

char *short_name(const char *full, int keep_templates)
{
    char *out = malloc(strlen(full) + 1);
    if (!out)
        return NULL;
    /* only C++ names have these; "(unwind failed)" and the like stay */
    if ((full[0] == '(' && !strstr(full, "::")) || (!strchr(full, '(') && !strchr(full, '<'))) {
        strcpy(out, full);
        return out;
    }
    drop_arguments(full, out, keep_templates);
    drop_qualifiers_and_type(out);
    if (!out[0])
        strcpy(out, full);
    return out;
}

static const cube_profile *cmp_p;
static char **cmp_keys;

static int by_key(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    int c = strcmp(cmp_keys[x], cmp_keys[y]);
    return c ? c : x - y;
}

/* unique[r] = 1 where no region with another full name has keys[r]. */
static int mark_unique(const cube_profile *p, char **keys, char *unique)
{
    int n = p->nregions;
    int *order = malloc(sizeof *order * ((size_t)n + 1));
    if (!order)
        return -1;
    for (int r = 0; r < n; r++)
        order[r] = r;
    cmp_p = p, cmp_keys = keys;
    qsort(order, (size_t)n, sizeof *order, by_key);
    for (int i = 0, j; i < n; i = j) {
        int clash = 0;
        for (j = i + 1; j < n && strcmp(keys[order[i]], keys[order[j]]) == 0; j++) {
            const char *a = p->regions[order[i]].name, *b = p->regions[order[j]].name;
            clash |= strcmp(a ? a : "", b ? b : "") != 0;
        }
        for (int k = i; k < j; k++)
            unique[order[k]] = !clash;
    }
    free(order);
    return 0;
}

const char **short_names_build(const cube_profile *p, int long_names)
{
    int n = p->nregions;
    const char **names = calloc((size_t)n + 1, sizeof *names);
    char **s0 = calloc((size_t)n + 1, sizeof *s0), **s1 = calloc((size_t)n + 1, sizeof *s1);
    char *u0 = calloc((size_t)n + 1, 1), *u1 = calloc((size_t)n + 1, 1);
    int ok = names && s0 && s1 && u0 && u1;
    for (int r = 0; ok && r < n; r++) {
        const char *full = p->regions[r].name ? p->regions[r].name : "?";
        s0[r] = short_name(full, 0);
        s1[r] = short_name(full, 1);
        ok = s0[r] && s1[r];
    }
    ok = ok && (long_names || (mark_unique(p, s0, u0) == 0 && mark_unique(p, s1, u1) == 0));
    for (int r = 0; ok && r < n; r++) {
        const char *full = p->regions[r].name ? p->regions[r].name : "?";
        char **pick = long_names ? NULL : u0[r] ? &s0[r] : u1[r] ? &s1[r] : NULL;
        if (pick && strcmp(*pick, full) != 0) {
            names[r] = *pick;
            *pick = NULL; /* now owned by names */
        } else {
            names[r] = full;
        }
    }
    for (int r = 0; s0 && s1 && r < n; r++)
        free(s0[r]), free(s1[r]);
    free(s0), free(s1), free(u0), free(u1);
    if (!ok) {
        short_names_free(p, names);
        return NULL;
    }
    return names;
}

void short_names_free(const cube_profile *p, const char **names)
{
    if (!names)
        return;
    for (int r = 0; r < p->nregions; r++)
        if (names[r] && names[r] != p->regions[r].name)
            free((char *)names[r]);
    free(names);
}
