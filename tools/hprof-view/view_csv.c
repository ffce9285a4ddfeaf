/*
 * view_csv.c - the CSV contract: header path,rank,thread,metric,exclusive,
 * inclusive, then one row per (cnode, location, metric) with a nonzero
 * value. path joins region names from the root with ';' (deep paths cut
 * in the middle, as vtree.h describes), below hprof's program root
 * (vt_is_program_root), so paths start at main.
 */
#include "tools/hprof-view/vtree.h"

#include <math.h>

#include <stdlib.h>
#include <string.h>

/* Builds call paths in document (pre)order: anc[d] is the cnode at depth
 * d on the current path. A path deeper than VT_PATH_FRAMES frames keeps
 * its first VT_PATH_HEAD and last VT_PATH_TAIL names around a
 * "[... N frames ...]" marker, and names are cut past VIEW_NAME_MAX bytes,
 * so a row costs O(VT_PATH_FRAMES) however deep the tree and long the names. */
typedef struct path_buf {
    char *s;
    size_t cap;
    int *anc;
} path_buf;

static int append(path_buf *b, size_t *pos, const char *full, int sep)
{
    char cut[VIEW_NAME_MAX + 64];
    const char *name = view_cut_name(full, cut, sizeof cut); /* bounded per row */
    size_t len = strlen(name), need = *pos + len + 2;
    if (need > b->cap) {
        char *s = realloc(b->s, need * 2);
        if (!s)
            return -1;
        b->s = s;
        b->cap = need * 2;
    }
    if (sep)
        b->s[(*pos)++] = ';';
    memcpy(b->s + *pos, name, len + 1);
    *pos += len;
    return 0;
}

static const char *path_of(path_buf *b, const cube_profile *p, int c, int top)
{
    int d = p->cnodes[c].depth - top, rc = 0;
    b->anc[d] = c;
    size_t pos = 0;
    char marker[64];
    if (d < VT_PATH_HEAD + VT_PATH_TAIL) {
        for (int i = 0; i <= d && rc == 0; i++)
            rc = append(b, &pos, cube_cnode_name(p, b->anc[i]), i > 0);
        return rc ? NULL : b->s;
    }
    for (int i = 0; i < VT_PATH_HEAD && rc == 0; i++)
        rc = append(b, &pos, cube_cnode_name(p, b->anc[i]), i > 0);
    long cut = (long)d + 1 - VT_PATH_HEAD - VT_PATH_TAIL;
    if (rc == 0)
        rc = append(b, &pos, vt_cut_marker(marker, sizeof marker, cut), 1);
    for (int i = d + 1 - VT_PATH_TAIL; i <= d && rc == 0; i++)
        rc = append(b, &pos, cube_cnode_name(p, b->anc[i]), 1);
    return rc ? NULL : b->s;
}

static void print_rows(FILE *out, const cube_profile *p, const int *ml, int nm, int c, const char *path,
                       int ids)
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
    if (!(b.anc = malloc(sizeof *b.anc * ((size_t)p->ncnodes + 1)))) {
        free(ml);
        return VIEW_FAILED;
    }
    fputs(ids ? "cnode,location,metric,exclusive,inclusive\n"
              : "path,rank,thread,metric,exclusive,inclusive\n",
          out);
    int top = p->nroots == 1 && vt_is_program_root(p, p->roots[0]);
    for (int c = 0; c < p->ncnodes && rc == 0; c++) {
        if (top && c == p->roots[0] && !ids)
            continue; /* holds nothing: its children start the paths */
        const char *path = ids ? "" : path_of(&b, p, c, top);
        if (!path)
            rc = -1;
        else
            print_rows(out, p, ml, nm, c, path, ids);
    }
    free(b.s);
    free(b.anc);
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
