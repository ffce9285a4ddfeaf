#include "core/select/select_filter.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The string a pattern matches when it has no unescaped * ? [ (fnmatch
 * then compares exactly, escapes removed); NULL: a wildcard, or no memory
 * (then the rule is matched with fnmatch, which is only slower). */
static char *literal_of(const char *pattern)
{
    char *lit = malloc(strlen(pattern) + 1), *o = lit;
    for (const char *p = pattern; lit && *p; p++) {
        if (p[0] == '\\' && p[1])
            p++;
        else if (*p == '*' || *p == '?' || *p == '[') {
            free(lit);
            return NULL;
        }
        *o++ = *p;
    }
    if (o)
        *o = '\0';
    return lit;
}

static uint32_t hash(const char *s, int mangled)
{
    uint32_t h = 2166136261u ^ (uint32_t)mangled;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The slot of (s, mangled): its rule's, or the empty one it would take. */
static int *slot_of(const select_block *b, const char *s, int mangled)
{
    for (uint32_t i = hash(s, mangled);; i++) {
        int *slot = &b->slots[i & b->mask];
        const select_rule *r = *slot ? &b->rules[*slot - 1] : NULL;
        if (!r || (r->mangled == mangled && strcmp(r->literal, s) == 0))
            return slot;
    }
}

int select_block_literal(const select_block *b, const char *s, int mangled)
{
    return b->slots ? *slot_of(b, s, mangled) - 1 : -1;
}

/* Rules in order: a later rule with the same literal takes the slot. */
int select_block_index(select_block *b)
{
    unsigned size = 2;
    while (size < 2u * (unsigned)b->n)
        size *= 2;
    b->mask = size - 1;
    b->slots = calloc(size, sizeof *b->slots);
    b->wild = malloc(sizeof *b->wild * (size_t)(b->n ? b->n : 1));
    if (!b->slots || !b->wild)
        return -1;
    for (int i = 0; i < b->n; i++) {
        select_rule *r = &b->rules[i];
        r->literal = literal_of(r->pattern);
        if (r->literal)
            *slot_of(b, r->literal, r->mangled) = i + 1;
        else
            b->wild[b->nwild++] = i;
    }
    return 0;
}
