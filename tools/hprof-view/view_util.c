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

int *view_metric_list(const cube_profile *p, const view_opts *o, int *n)
{
    int *list = malloc(sizeof *list * (size_t)(p->nmetrics + o->nmetrics + 1));
    if (!list)
        return NULL;
    *n = 0;
    if (o->nmetrics) {
        for (int i = 0; i < o->nmetrics; i++)
            list[(*n)++] = o->metrics[i];
        return list;
    }
    for (int i = 0; i < p->nmetrics; i++)
        if (p->metrics[i].loaded)
            list[(*n)++] = i;
    return list;
}
