/*
 * view_html_fold.h - which call paths the HTML page holds. A page of every
 * call path of a huge profile is too large to open (786k paths gave
 * 200 MB), and most of them cannot be seen in it: a flame graph box under
 * 0.05% of a 2000-pixel screen is not drawn, a tree row reads 0.0%.
 *
 * The page holds every visible call path when there are at most
 * HTML_ALL_PATHS; else the heaviest (by their largest share of a shown
 * metric's total) down to HTML_MIN_SHARE, at most as many as keep the
 * page's numbers (paths x metrics x (2 + ranks)) under HTML_MAX_VALUES and
 * never more than HTML_MAX_PATHS, always with their callers. Under each
 * page node, the callees left out become one node "[N more call paths]"
 * holding their combined inclusive values (as its inclusive and exclusive
 * value), so every total and every caller's value stays exact.
 */
#ifndef HPROF_VIEW_HTML_FOLD_H
#define HPROF_VIEW_HTML_FOLD_H

#include "tools/hprof-view/vtree.h"

#define HTML_ALL_PATHS 2000
#define HTML_MIN_SHARE 1e-4
#define HTML_MAX_PATHS 20000
#define HTML_MIN_PATHS 100 /* kept whatever the number of ranks */
#define HTML_MAX_VALUES 4000000.0

typedef struct html_nodes {
    int n;        /* nodes of the page */
    int *vnode;   /* [node]: its view node; a folded group: -1 - its group */
    int *parent;  /* [node]: page index of its caller, -1 for a root */
    int *members; /* [node]: call paths a folded group stands for */
    int ngroups;
    int nm, nprocs;
    double *gincl;  /* [metric k][group]: a group's combined inclusive value */
    double *gprocs; /* [metric k][group][proc] */
    int shown;      /* view nodes shown as themselves */
    int visible;    /* view nodes the page could show (--focus) */
    int cap;        /* the most it may show */
} html_nodes;

/* Chooses the page's nodes for the metrics ml[0..nm) (loaded with
 * vt_metric_locs) and combines the groups' values. 0 or VIEW_FAILED. */
int html_nodes_choose(html_nodes *h, const vtree *t, const int *ml, int nm);
void html_nodes_free(html_nodes *h);

/* Node k's value of metric ml[mk]: inclusive or exclusive (a group's
 * exclusive value is its inclusive one), and inclusive on process proc. */
double html_node_value(const html_nodes *h, const vtree *t, const int *ml, int mk, int k, int inclusive);
double html_node_proc_value(const html_nodes *h, const vtree *t, const int *ml, int mk, int k, int proc);

/* A line saying what was folded, or NULL when the page holds every path. */
const char *html_nodes_note(const html_nodes *h, char *buf, size_t len);

#endif
