#include "core/select/select_filter.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* Drops the component before out (and its '/'), as "dir/.." does; 0 when
 * ".." must stay (above a relative path's start). At an absolute path's
 * root, "/.." is "/". */
static int pop(char *start, char **out, int absolute)
{
    if (*out == start)
        return absolute;
    char *c = *out;
    while (c > start && c[-1] != '/')
        c--;
    if (*out - c == 2 && c[0] == '.' && c[1] == '.')
        return 0;
    *out = c > start ? c - 1 : start;
    return 1;
}

/* Writes components back in place ("/" between them), so out never
 * passes the component being read. */
void select_simplify_path(char *path)
{
    int absolute = path[0] == '/';
    char *start = path + absolute, *out = start, *p = start;
    while (*p) {
        while (*p == '/')
            p++;
        char *c = p;
        while (*p && *p != '/')
            p++;
        size_t n = (size_t)(p - c);
        if (n == 0 || (n == 1 && c[0] == '.'))
            continue;
        if (n == 2 && c[0] == '.' && c[1] == '.' && pop(start, &out, absolute))
            continue;
        if (out > start)
            *out++ = '/';
        memmove(out, c, n);
        out += n;
    }
    if (out == path)
        *out++ = '.';
    *out = '\0';
}

/* 0: matches, 1: does not, -1: fnmatch failed. */
static int match(const char *pattern, const char *s, char *err, size_t errlen)
{
    int rc = fnmatch(pattern, s, 0);
    if (rc == 0 || rc == FNM_NOMATCH)
        return rc == 0 ? 0 : 1;
    select_err(err, errlen, "the wildcard pattern '%s' cannot be matched (fnmatch failed)", pattern);
    return -1;
}

/* The index of the last rule of b that matches, -1: none, -2: fnmatch
 * failed. name: what demangled rules see; mangled: what MANGLED ones see
 * (the same string for a file). */
static int last_match(const select_block *b, const char *name, const char *mangled, char *err, size_t errlen)
{
    int best = select_block_literal(b, name, 0);
    int m = select_block_literal(b, mangled, 1);
    best = m > best ? m : best;
    for (int k = b->nwild - 1; k >= 0 && b->wild[k] > best; k--) {
        const select_rule *r = &b->rules[b->wild[k]];
        int rc = match(r->pattern, r->mangled ? mangled : name, err, errlen);
        if (rc < 0)
            return -2;
        if (rc == 0)
            return b->wild[k];
    }
    return best;
}

/* 1: the block's last matching rule is an EXCLUDE; 0: an INCLUDE, or none
 * matched (everything starts included); -1: fnmatch failed. */
static int block_excludes(const select_block *b, const char *name, const char *mangled, char *err,
                          size_t errlen)
{
    int i = last_match(b, name, mangled, err, errlen);
    return i == -2 ? -1 : i >= 0 && b->rules[i].exclude;
}

static int file_excluded(const select_filter *f, const select_fn *fn, char *err, size_t errlen)
{
    if (!fn->file || f->file.n == 0)
        return 0;
    char *path = strdup(fn->file);
    if (!path) {
        select_err(err, errlen, "out of memory");
        return -1;
    }
    select_simplify_path(path);
    int x = block_excludes(&f->file, path, path, err, errlen);
    free(path);
    return x;
}

int select_filter_excludes(const select_filter *f, const select_fn *fn, char *err, size_t errlen)
{
    int x = file_excluded(f, fn, err, errlen);
    if (x != 0)
        return x;
    return block_excludes(&f->region, fn->name, fn->mangled ? fn->mangled : fn->name, err, errlen);
}
