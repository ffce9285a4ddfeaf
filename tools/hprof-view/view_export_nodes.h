/*
 * view_export_nodes.h - the call paths the per-location exports (--hatchet,
 * --speedscope) hold, with every location's values. They take the HTML
 * page's bound (view_html_fold.h): every call path of a small profile;
 * of a large one the heaviest down to a share, the callees left out of a
 * node folded into one "[N more call paths]" node whose inclusive (and
 * exclusive) value on each location is theirs combined, so every
 * location's totals stay exact.
 */
#ifndef HPROF_VIEW_EXPORT_NODES_H
#define HPROF_VIEW_EXPORT_NODES_H

#include "tools/hprof-view/view_html_fold.h"

typedef struct export_nodes {
    html_nodes h; /* the nodes, their callers, the folded groups */
    int nm, nlocs;
    double *excl, *incl; /* [metric k][node][location] */
} export_nodes;

/* Chooses the nodes for the metrics ml[0..nm) and fills their values on
 * every location. 0 or a view status (reason in t->o->err). */
int export_nodes_build(export_nodes *e, vtree *t, const int *ml, int nm);
void export_nodes_free(export_nodes *e);

/* Node k's value of metric ml[mk] on location loc. */
double export_value(const export_nodes *e, int mk, int k, int loc, int inclusive);

/* Node k's name: its vnode's, or "[N more call paths]" for a group (buf). */
const char *export_node_name(const export_nodes *e, const vtree *t, int k, char *buf, size_t len);

#endif
