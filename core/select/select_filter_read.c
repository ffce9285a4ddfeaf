/*
 * select_filter_read.c - reads a Score-P filter file into a selection
 * (select.h: select_from_scorep_filter), as Score-P's manual ("Filtering")
 * and its parser read it:
 *
 *   - '#' starts a comment to the end of the line, unless escaped (\#);
 *   - tokens are separated by white space; '\' escapes the next character
 *     (a space in a name: "\ "), and the escapes stay in the pattern for
 *     fnmatch();
 *   - SCOREP_FILE_NAMES_BEGIN ... _END and SCOREP_REGION_NAMES_BEGIN ...
 *     _END hold rules: INCLUDE or EXCLUDE, then any number of patterns, on
 *     as many lines as needed (a rule lasts until the next keyword); in
 *     the region block MANGLED switches the rest of the rule's patterns to
 *     the mangled name, DEMANGLED back; keywords are case-sensitive;
 *   - a line ending in '\' is an error, as in Score-P (lines do not
 *     continue; a rule's patterns simply go on on the next line).
 *
 * Stricter than Score-P, each with its one line: a block never closed at
 * the end of the file (Score-P quietly keeps its rules); a keyword in the
 * wrong case ("Exclude", which Score-P would take as a pattern) or an
 * upper-case SCOREP_ word that is no keyword (a typo); and a file without
 * any EXCLUDE rule, which filters nothing, so as a selection it would take
 * every function: hprof refuses it rather than measure everything.
 *
 * Only a regular file of at most FILTER_MAX_BYTES is read: a FIFO would
 * block MPI_Init until some writer came, a device such as /dev/zero never
 * ends (one line growing without bound).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/select/select.h"
#include "core/select/select_filter.h"
#include "core/select/select_node.h"

#define FILTER_MAX_BYTES (64ll << 20) /* CaPI's list for 100,000 functions is a few MB */

enum block {
    NO_BLOCK,
    FILE_BLOCK,
    REGION_BLOCK
};
enum rule {
    NO_RULE,
    INCLUDE_RULE,
    EXCLUDE_RULE
};

typedef struct reader {
    const char *path;
    int line;
    enum block block;
    int block_line; /* where the open block began */
    enum rule rule;
    int mangled;
    int nexclude;
    select_filter *f;
    char *err;
    size_t errlen;
} reader;

static const char *const begin_kw[] = { "", "SCOREP_FILE_NAMES_BEGIN", "SCOREP_REGION_NAMES_BEGIN" };
static const char *const end_kw[] = { "", "SCOREP_FILE_NAMES_END", "SCOREP_REGION_NAMES_END" };
static const char *const keywords[] = {
    "SCOREP_FILE_NAMES_BEGIN",
    "SCOREP_FILE_NAMES_END",
    "SCOREP_REGION_NAMES_BEGIN",
    "SCOREP_REGION_NAMES_END",
    "INCLUDE",
    "EXCLUDE",
    "MANGLED",
    "DEMANGLED",
};

static int fail(reader *r, const char *what, const char *tok)
{
    select_err(r->err, r->errlen, "%s:%d: %s%s%s%s", r->path, r->line, tok ? "'" : "", tok ? tok : "",
               tok ? "' " : "", what);
    return -1;
}

static int add_pattern(reader *r, const char *tok)
{
    select_block *b = r->block == FILE_BLOCK ? &r->f->file : &r->f->region;
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 16;
        select_rule *grown = realloc(b->rules, sizeof *grown * (size_t)cap);
        if (!grown)
            return fail(r, "out of memory", NULL);
        b->rules = grown;
        b->cap = cap;
    }
    char *pattern = strdup(tok);
    if (!pattern)
        return fail(r, "out of memory", NULL);
    b->rules[b->n++] = (select_rule){ pattern, NULL, r->rule == EXCLUDE_RULE, (unsigned char)r->mangled };
    r->nexclude += r->rule == EXCLUDE_RULE;
    return 0;
}

static int begin_block(reader *r, enum block b, const char *tok)
{
    if (r->block != NO_BLOCK) {
        char what[160];
        snprintf(what, sizeof what, "inside the %s block of line %d (close it first with %s)",
                 begin_kw[r->block], r->block_line, end_kw[r->block]);
        return fail(r, what, tok);
    }
    r->block = b;
    r->block_line = r->line;
    r->rule = NO_RULE;
    return 0;
}

static int end_block(reader *r, enum block b, const char *tok)
{
    if (r->block == b) {
        r->block = NO_BLOCK;
        return 0;
    }
    char what[160];
    if (r->block == NO_BLOCK)
        snprintf(what, sizeof what, "without %s before it", begin_kw[b]);
    else
        snprintf(what, sizeof what, "cannot close the %s block of line %d (expected %s)", begin_kw[r->block],
                 r->block_line, end_kw[r->block]);
    return fail(r, what, tok);
}

static int start_rule(reader *r, enum rule rule, const char *tok)
{
    if (r->block == NO_BLOCK)
        return fail(r, "outside a SCOREP_REGION_NAMES or SCOREP_FILE_NAMES block", tok);
    r->rule = rule;
    r->mangled = 0;
    return 0;
}

static int set_mangled(reader *r, int on, const char *tok)
{
    if (r->block != REGION_BLOCK || r->rule == NO_RULE)
        return fail(r, "belongs inside an INCLUDE or EXCLUDE rule of a SCOREP_REGION_NAMES block", tok);
    r->mangled = on;
    return 0;
}

/* 1: tok is a keyword in the wrong case, or an upper-case SCOREP_ word
 * that is none (a typo): refused rather than read as a pattern. */
static int looks_like_keyword(const char *tok)
{
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (strcasecmp(tok, keywords[i]) == 0)
            return 1;
    return strncmp(tok, "SCOREP_", 7) == 0 && strspn(tok, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == strlen(tok);
}

static int pattern(reader *r, const char *tok)
{
    if (looks_like_keyword(tok))
        return fail(r,
                    "is not a keyword (keywords: SCOREP_REGION_NAMES_BEGIN/END, "
                    "SCOREP_FILE_NAMES_BEGIN/END, INCLUDE, EXCLUDE, MANGLED, DEMANGLED; "
                    "case matters)",
                    tok);
    if (r->block == NO_BLOCK)
        return fail(r, "outside a SCOREP_REGION_NAMES or SCOREP_FILE_NAMES block", tok);
    if (r->rule == NO_RULE)
        return fail(r, "comes before any INCLUDE or EXCLUDE in its block", tok);
    return add_pattern(r, tok);
}

static int token(reader *r, const char *tok)
{
    if (strcmp(tok, "SCOREP_FILE_NAMES_BEGIN") == 0)
        return begin_block(r, FILE_BLOCK, tok);
    if (strcmp(tok, "SCOREP_REGION_NAMES_BEGIN") == 0)
        return begin_block(r, REGION_BLOCK, tok);
    if (strcmp(tok, "SCOREP_FILE_NAMES_END") == 0)
        return end_block(r, FILE_BLOCK, tok);
    if (strcmp(tok, "SCOREP_REGION_NAMES_END") == 0)
        return end_block(r, REGION_BLOCK, tok);
    if (strcmp(tok, "INCLUDE") == 0 || strcmp(tok, "EXCLUDE") == 0)
        return start_rule(r, tok[0] == 'E' ? EXCLUDE_RULE : INCLUDE_RULE, tok);
    if (strcmp(tok, "MANGLED") == 0 || strcmp(tok, "DEMANGLED") == 0)
        return set_mangled(r, tok[0] == 'M', tok);
    return pattern(r, tok);
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Splits one line (newline removed) into tokens in place; escapes stay. */
static int read_line(reader *r, char *p)
{
    for (;;) {
        while (is_blank(*p))
            p++;
        if (*p == '\0' || *p == '#')
            return 0;
        char *tok = p;
        while (*p && !is_blank(*p) && *p != '#') {
            if (p[0] == '\\' && p[1] == '\0')
                return fail(r,
                            "a line cannot end in '\\': Score-P does not continue lines "
                            "(a rule's patterns may simply go on on the next line)",
                            NULL);
            p += p[0] == '\\' ? 2 : 1;
        }
        char stop = *p;
        *p = '\0';
        if (token(r, tok) != 0)
            return -1;
        if (stop == '\0' || stop == '#')
            return 0;
        p++;
    }
}

static int too_large(reader *r)
{
    select_err(r->err, r->errlen, "%s: larger than a filter may be (%lld MiB)", r->path,
               FILTER_MAX_BYTES >> 20);
    return -1;
}

static int read_all(reader *r, FILE *in)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long long bytes = 0;
    int rc = 0;
    while (rc == 0 && (n = getline(&line, &cap, in)) >= 0) {
        if ((bytes += n) > FILTER_MAX_BYTES) { /* a file that grows while read */
            rc = too_large(r);
            break;
        }
        r->line++;
        if (n > 0 && line[n - 1] == '\n')
            line[n - 1] = '\0';
        rc = read_line(r, line);
    }
    free(line);
    if (rc == 0 && ferror(in)) {
        select_err(r->err, r->errlen, "%s: cannot read: %s", r->path, strerror(errno));
        rc = -1;
    }
    return rc;
}

static int check_end(reader *r)
{
    if (r->block != NO_BLOCK) {
        r->line = r->block_line;
        char what[120];
        snprintf(what, sizeof what, "is never closed (%s is missing)", end_kw[r->block]);
        return fail(r, what, begin_kw[r->block]);
    }
    if (r->nexclude == 0) {
        select_err(r->err, r->errlen,
                   "%s: no EXCLUDE rule: the filter excludes nothing, so it would "
                   "select every function (to select some, start with 'EXCLUDE *' and INCLUDE them)",
                   r->path);
        return -1;
    }
    return 0;
}

static select_expr *wrap(select_filter *f)
{
    select_expr *e = calloc(1, sizeof *e);
    select_node *n = e ? select_node_new(SEL_FILTER, NULL, NULL) : NULL;
    if (!n) {
        free(e);
        select_filter_free(f);
        return NULL;
    }
    n->filter = f;
    e->root = n;
    return e;
}

static const char *file_kind(mode_t mode)
{
    return S_ISDIR(mode)    ? "a directory"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
                            : "no regular file";
}

/* path as a stream when it is a regular file of a filter's size; opened
 * without blocking, so that a FIFO is only looked at. */
static FILE *open_filter(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        select_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode) || st.st_size > FILTER_MAX_BYTES) {
        if (!S_ISREG(st.st_mode))
            select_err(err, errlen, "%s: is %s: a filter is read from a regular file", path,
                       file_kind(st.st_mode));
        else
            select_err(err, errlen, "%s: larger than a filter may be (%lld MiB)", path,
                       FILTER_MAX_BYTES >> 20);
        close(fd);
        return NULL;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    FILE *in = fdopen(fd, "r");
    if (!in) {
        select_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
    }
    return in;
}

select_expr *select_from_scorep_filter(const char *path, char *err, size_t errlen)
{
    select_err(err, errlen, "%s", "");
    if (!path) {
        select_err(err, errlen, "(no file): cannot open: no path given");
        return NULL;
    }
    FILE *in = open_filter(path, err, errlen);
    if (!in)
        return NULL;
    reader r = { .path = path, .err = err, .errlen = errlen };
    r.f = calloc(1, sizeof *r.f);
    int rc = r.f ? read_all(&r, in) : fail(&r, "out of memory", NULL);
    fclose(in);
    if (rc == 0)
        rc = check_end(&r);
    if (rc == 0 && (select_block_index(&r.f->file) != 0 || select_block_index(&r.f->region) != 0))
        rc = fail(&r, "out of memory", NULL);
    if (rc != 0) {
        select_filter_free(r.f);
        return NULL;
    }
    select_expr *e = wrap(r.f);
    if (!e)
        select_err(err, errlen, "%s: out of memory", path);
    return e;
}
