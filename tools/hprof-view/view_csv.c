/*
 * view_csv.c - the CSV contract: header path,rank,thread,metric,exclusive,
 * inclusive, then one row per (cnode, location, metric) with a nonzero
 * value. path joins region names from the root with ';'.
 */
#include "view.h"

#include <math.h>

#include <stdlib.h>
#include <string.h>

/* Builds call paths in document (pre)order: the path of a cnode at depth
 * d extends the prefix its parent left at depth d. */
typedef struct path_buf {
    char *s;
    size_t cap;
    size_t *len_at;     /* path length before depth d */
    int depth_cap;
} path_buf;

static const char *path_of(path_buf *b, const cube_profile *p, int c)
{
    int d = p->cnodes[c].depth;
    if (d + 2 > b->depth_cap) {
        int nc = (d + 2) * 2;
        size_t *l = realloc(b->len_at, sizeof *l * (size_t)nc);
        if (!l)
            return NULL;
        b->len_at = l;
        b->depth_cap = nc;
    }
    if (d == 0)
        b->len_at[0] = 0;
    const char *name = cube_cnode_name(p, c);
    size_t start = b->len_at[d], need = start + strlen(name) + 2;
    if (need > b->cap) {
        char *s = realloc(b->s, need * 2);
        if (!s)
            return NULL;
        b->s = s;
        b->cap = need * 2;
    }
    size_t pos = start;
    if (d > 0)
        b->s[pos++] = ';';
    strcpy(b->s + pos, name);
    b->len_at[d + 1] = pos + strlen(name);
    return b->s;
}

static void print_rows(FILE *out, const cube_profile *p, const int *ml, int nm,
                       int c, const char *path, int ids)
{
    for (int l = 0; l < p->nlocs; l++) {
        for (int k = 0; k < nm; k++) {
            const cube_metric *m = &p->metrics[ml[k]];
            double ex = cube_value(p, ml[k], c, l, 0), in = cube_value(p, ml[k], c, l, 1);
            if ((ex == 0 || isnan(ex)) && (in == 0 || isnan(in)))
                continue;
            if (ids) {
                fprintf(out, "%d,%d,", p->cnodes[c].id, l);
            } else {
                view_print_csv_field(out, path);
                fprintf(out, ",%d,%d,", p->procs[p->locs[l].process].rank, p->locs[l].thread);
            }
            view_print_csv_field(out, m->uniq_name ? m->uniq_name : "");
            fputc(',', out);
            view_print_value(out, m, ex);
            fputc(',', out);
            view_print_value(out, m, in);
            fputc('\n', out);
        }
    }
}

static int csv(cube_profile *p, const view_opts *o, FILE *out, int ids)
{
    int nm, rc;
    int *ml = view_metric_list(p, o, &nm, &rc);
    path_buf b = { 0 };
    if (!ml)
        return rc;
    fputs(ids ? "cnode,location,metric,exclusive,inclusive\n"
              : "path,rank,thread,metric,exclusive,inclusive\n", out);
    for (int c = 0; c < p->ncnodes && rc == 0; c++) {
        const char *path = path_of(&b, p, c);
        if (!path)
            rc = -1;
        else
            print_rows(out, p, ml, nm, c, path, ids);
    }
    free(b.s);
    free(b.len_at);
    free(ml);
    return rc;
}

int view_csv(cube_profile *p, const view_opts *o, FILE *out)
{
    return csv(p, o, out, 0);
}

int view_csv_ids(cube_profile *p, const view_opts *o, FILE *out)
{
    return csv(p, o, out, 1);
}
