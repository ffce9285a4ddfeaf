/* view_width.c - terminal width, elided paths, wrapped text (view_width.h). */
#include "tools/hprof-view/view_width.h"
#include "tools/hprof-view/library_fold.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int view_columns(void)
{
    const char *env = getenv("COLUMNS");
    long c;
    if (env && view_parse_long(env, 20, 10000, &c) == 0)
        return (int)c;
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col;
    return 100;
}

static const char sep[] = { VIEW_NBSP, '>', VIEW_NBSP, '\0' };

/* Appends s (at most n bytes of it) at buf[*k], within len. */
static void put(char *buf, size_t len, size_t *k, const char *s, size_t n)
{
    if (*k + n >= len)
        n = *k + 1 < len ? len - 1 - *k : 0;
    memcpy(buf + *k, s, n);
    *k += n;
    buf[*k] = '\0';
}

/* The deepest frame of the program itself between the root and the last
 * frame (not MPI, not in a shared library): the one a reader looks for. */
static int program_anchor(const vtree *t, const int *chain, int n)
{
    for (int i = 1; i < n - 1; i++)
        if (!t->v[chain[i]].is_mpi && !t->v[chain[i]].label &&
            !library_of_region(t->p, t->v[chain[i]].region))
            return i;
    return -1;
}

const char *view_path_fit(const vtree *t, int v, size_t max, char *buf, size_t len)
{
    int chain[512], n = 0;
    char keep[512] = { 0 };
    size_t k = 0;
    buf[0] = '\0';
    int a = v;
    for (; a >= 0 && n < 512; a = t->v[a].parent)
        chain[n++] = a; /* chain[0] is v, chain[n - 1] the root */
    for (; a >= 0; a = t->v[a].parent)
        chain[n - 1] = a; /* deeper than 512: the root still comes first */
    /* frames by priority: the root, the last frame, the program's deepest
     * frame, then the frames above the last one, deepest first */
    int order[512], no = 0, anchor = program_anchor(t, chain, n);
    order[no++] = n - 1;
    if (n > 1)
        order[no++] = 0;
    if (anchor > 0)
        order[no++] = anchor;
    for (int i = 1; i < n - 1; i++)
        if (i != anchor)
            order[no++] = i;
    size_t used = 0, whole = 0;
    for (int i = 0; i < n; i++)
        whole += strlen(vt_name(t, chain[i])) + (i ? 3 : 0);
    if (whole <= max)
        memset(keep, 1, (size_t)n);
    for (int j = 0; j < no && whole > max; j++) {
        int i = order[j];
        size_t add = strlen(vt_name(t, chain[i])) + 3 + 6; /* " > " and room for a "... > " */
        if (j > 1 && used + add > max)
            continue;
        keep[i] = 1;
        used += add;
    }
    for (int i = n - 1; i >= 0; i--) {
        if (!keep[i]) {
            if (i == n - 1 || keep[i + 1])
                put(buf, len, &k, "...", 3), put(buf, len, &k, sep, 3);
            continue;
        }
        const char *nm = vt_name(t, chain[i]);
        size_t l = strlen(nm), room = max > k + 3 ? max - k : 3;
        if (l > room) { /* a name longer than the line */
            put(buf, len, &k, nm, room - 3);
            put(buf, len, &k, "...", 3);
            break;
        }
        put(buf, len, &k, nm, l);
        if (i)
            put(buf, len, &k, sep, 3);
    }
    return buf;
}

/* Visible length of s[0..n): ANSI escape sequences take no columns. */
static size_t visible(const char *s, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\033') {
            while (i < n && s[i] != 'm')
                i++;
            continue;
        }
        w++;
    }
    return w;
}

static void print_nbsp(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fputc(s[i] == VIEW_NBSP ? ' ' : s[i], out);
}

void view_print_wrapped(FILE *out, const char *first_prefix, int indent, const char *text, int width,
                        const char *color, const char *reset)
{
    size_t col = visible(first_prefix, strlen(first_prefix));
    fputs(first_prefix, out);
    fputs(color, out);
    int at_line_start = 1;
    for (const char *s = text; *s;) {
        while (*s == ' ')
            s++;
        size_t n = strcspn(s, " ");
        if (!n)
            break;
        size_t w = visible(s, n);
        if (!at_line_start && col + 1 + w > (size_t)width) {
            fprintf(out, "%s\n%*s%s", reset, indent, "", color);
            col = (size_t)indent;
            at_line_start = 1;
        }
        if (!at_line_start)
            fputc(' ', out), col++;
        print_nbsp(out, s, n);
        col += w;
        at_line_start = 0;
        s += n;
    }
    fprintf(out, "%s\n", reset);
}
