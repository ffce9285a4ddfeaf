/* view_util.c - value printing, CSV quoting, metric selection. */
#include "view.h"

#include <stdlib.h>
#include <string.h>

void view_print_value(FILE *out, const cube_metric *m, double v)
{
    if (m->is_integer)
        fprintf(out, "%.0f", v);
    else
        fprintf(out, "%.17g", v);
}

/* RFC 4180: quote when the field holds a comma, quote or line break. */
void view_print_csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
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
    fprintf(out, "%s: ok: %d call paths, %d locations, %d of %d metrics loaded\n",
            o->path, p->ncnodes, p->nlocs, n, p->nmetrics);
    free(list);
    return 0;
}
