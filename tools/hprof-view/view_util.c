/* view_util.c - value printing, CSV quoting, metric selection. */
#include "tools/hprof-view/view.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

/* Blanks around a number are allowed on both sides (" 10" and "10 "), as
 * the CUBE reader and the library's variables (core/config.c) allow. */
static int only_blanks(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return *s == '\0';
}

int view_parse_number(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || !only_blanks(end) || errno || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

int view_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || !only_blanks(end) || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

void view_print_value(FILE *out, const cube_metric *m, double v)
{
    if (isnan(v))
        return; /* a ratio over nothing: an empty field */
    if (m->is_integer)
        fprintf(out, "%.0f", v);
    else
        fprintf(out, "%.17g", v);
}

/* RFC 4180: quote when the field holds a comma, quote or line break.
 * A text cell that starts like a formula (= + - @, tab, carriage return)
 * gets a leading single quote, as OWASP advises against CSV injection:
 * spreadsheets then show it as text instead of evaluating it. Only text
 * goes through here; numbers (-1.5) are printed by view_print_value. */
void view_print_csv_field(FILE *out, const char *s)
{
    const char *guard = s[0] && strchr("=+-@\t\r", s[0]) ? "'" : "";
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(guard, out);
        fputs(s, out);
        return;
    }
    fputc('"', out);
    fputs(guard, out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

int view_load(cube_profile *p, const view_opts *o, int metric)
{
    return cube_load_metric(p, metric, o->err, o->errlen) < 0 ? VIEW_BAD_FILE : 0;
}

int *view_metric_list(cube_profile *p, const view_opts *o, int *n, int *rc)
{
    int *list = malloc(sizeof *list * (size_t)(p->nmetrics + o->nmetrics + 1));
    *n = 0;
    *rc = VIEW_FAILED;
    if (!list)
        return NULL;
    for (int i = 0; i < o->nmetrics; i++)
        list[(*n)++] = o->metrics[i];
    for (int i = 0; o->nmetrics == 0 && i < p->nmetrics; i++)
        if (p->metrics[i].loadable)
            list[(*n)++] = i;
    *rc = o->nmetrics ? 0 : (cube_load_all(p, o->err, o->errlen) < 0 ? VIEW_BAD_FILE : 0);
    for (int i = 0; *rc == 0 && i < *n; i++)
        *rc = view_load(p, o, list[i]);
    if (*rc < 0) {
        free(list);
        return NULL;
    }
    return list;
}

int view_check(cube_profile *p, const view_opts *o, FILE *out)
{
    int n, rc;
    int *list = view_metric_list(p, o, &n, &rc);
    if (!list)
        return rc;
    fprintf(out, "%s: ok: %d call paths, %d locations, %d of %d metrics loaded\n", o->path, p->ncnodes,
            p->nlocs, n, p->nmetrics);
    free(list);
    return 0;
}

void view_print_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
        switch (*c) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        case '<': fputs("\\u003c", out); break; /* safe inside an HTML <script> */
        default:
            if (*c < 0x20 || *c == 0x7f)
                fprintf(out, "\\u%04x", *c);
            else
                fputc(*c, out);
        }
    }
    fputc('"', out);
}

void view_print_json_number(FILE *out, double v, int is_integer)
{
    if (!isfinite(v))
        fputs("null", out);
    else if (v == 0)
        fputc('0', out);
    else if (is_integer || (v == floor(v) && fabs(v) < 1e15))
        fprintf(out, "%.0f", v);
    else
        fprintf(out, "%.17g", v);
}

int view_metric(const cube_profile *p, const char *name)
{
    int m = cube_find_metric(p, name);
    return m >= 0 && p->metrics[m].loadable ? m : -1;
}

int view_main_metric(const cube_profile *p, const view_opts *o)
{
    if (o->nmetrics > 0)
        return o->metrics[0];
    int m = view_metric(p, "time");
    for (int i = 0; m < 0 && i < p->nmetrics; i++)
        if (p->metrics[i].loadable)
            m = i;
    return m;
}

double view_share(double part, double total)
{
    return total != 0 ? 100.0 * part / total : 0.0;
}

const char *view_fmt(char *buf, size_t len, const cube_metric *m, double v)
{
    const char *u = m->uom ? m->uom : "";
    double a = fabs(v);
    if (isnan(v)) {
        snprintf(buf, len, "-");
        return buf;
    }
    if (strcmp(u, "sec") == 0) {
        if (a == 0)
            snprintf(buf, len, "0 s");
        else if (a < 1e-3)
            snprintf(buf, len, "%.1f us", v * 1e6);
        else if (a < 1)
            snprintf(buf, len, "%.2f ms", v * 1e3);
        else
            snprintf(buf, len, "%.3f s", v);
    } else if (strcmp(u, "bytes") == 0) {
        static const char *const unit[] = { "B", "kB", "MB", "GB", "TB", "PB" };
        int i = 0;
        while (a >= 1000 && i < 5)
            a /= 1000, v /= 1000, i++;
        snprintf(buf, len, i ? "%.1f %s" : "%.0f %s", v, unit[i]);
    } else if (m->is_integer || (v == floor(v) && a < 1e15)) {
        snprintf(buf, len, "%.0f", v);
    } else {
        snprintf(buf, len, "%.4g", v);
    }
    return buf;
}

int view_region_is_mpi(const cube_profile *p, int region)
{
    if (region < 0)
        return 0;
    const cube_region *r = &p->regions[region];
    if (r->role && strcmp(r->role, "artificial") == 0)
        return 0; /* Score-P's PARALLEL and the like */
    if (r->paradigm && strcmp(r->paradigm, "mpi") == 0)
        return 1;
    return r->name && strncmp(r->name, "MPI_", 4) == 0 && (!r->paradigm || !r->paradigm[0]);
}

const char *view_c(const view_opts *o, const char *code)
{
    static char buf[8][16];
    static int next;
    if (!o->color)
        return "";
    char *b = buf[next++ & 7];
    snprintf(b, sizeof buf[0], "\033[%sm", code);
    return b;
}
