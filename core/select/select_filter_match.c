#include "select_filter.h"

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

/* The last matching rule decides; nothing matched: included (0). */
static int rules_exclude(const select_rule *r, int n, const select_fn *fn, const char *file,
                         char *err, size_t errlen)
{
    int excluded = 0;
    for (int i = 0; i < n; i++) {
        const char *s = file ? file : (r[i].mangled && fn->mangled ? fn->mangled : fn->name);
        int m = match(r[i].pattern, s, err, errlen);
        if (m < 0)
            return -1;
        if (m == 0)
            excluded = r[i].exclude;
    }
    return excluded;
}

static int file_excluded(const select_filter *f, const select_fn *fn, char *err, size_t errlen)
{
    if (!fn->file || f->nfile == 0)
        return 0;
    char *path = strdup(fn->file);
    if (!path) {
        select_err(err, errlen, "out of memory");
        return -1;
    }
    select_simplify_path(path);
    int x = rules_exclude(f->file_rules, f->nfile, fn, path, err, errlen);
    free(path);
    return x;
}

int select_filter_excludes(const select_filter *f, const select_fn *fn, char *err, size_t errlen)
{
    int x = file_excluded(f, fn, err, errlen);
    if (x != 0)
        return x;
    return rules_exclude(f->region_rules, f->nregion, fn, NULL, err, errlen);
}
