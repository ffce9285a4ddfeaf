/*
 * vtree.h - the view tree: the profile's call tree as the views show it.
 *
 * Built from the cnodes in preorder: a hidden frame (a --hide match, or by
 * default a libc/libstdc++/libhprof frame called from such a frame or from
 * an MPI function) is folded into its caller: its exclusive values go to
 * the caller and its callees become the caller's callees. Callees of one
 * caller with the same region and call site are merged. --focus marks the
 * subtrees of matching regions (in_focus) and their callers (visible);
 * --rank selects the locations whose values the totals combine.
 *
 * Values: vt_metric() gives each vnode's exclusive and inclusive value
 * combined over the selected locations; vt_metric_locs() adds the values
 * per location, for views that compare ranks.
 */
#ifndef HPROF_VTREE_H
#define HPROF_VTREE_H

#include "view.h"

typedef struct vnode {
    int region;             /* region index, -1 if none */
    int cnode;              /* the first cnode folded into this node */
    int parent, first_child, next_sibling;
    int depth;
    int in_focus;           /* inside a focused subtree (all, without --focus) */
    int visible;            /* in focus, or a caller of a focused node */
    int is_mpi;             /* an MPI function */
} vnode;

typedef struct vmetric {
    double *excl, *incl;    /* [vnode], over the selected locations */
    double *lexcl, *lincl;  /* [vnode * nlocs], all locations; NULL until asked */
} vmetric;

typedef struct vtree {
    cube_profile *p;
    const view_opts *o;
    vnode *v;
    int nv;
    int *roots;
    int nroots;
    int *map;               /* cnode -> vnode */
    char *locsel;           /* [loc]: 1 if selected by --rank */
    int *proc_locs;         /* location indexes grouped by process */
    int *proc_start;        /* [proc]..[proc + 1]: that process's range in proc_locs */
    vmetric *vm;            /* [metric] */
    int focused;            /* --focus given */
} vtree;

/* 0, VIEW_FAILED, or VIEW_BAD_USAGE with the reason in o->err (bad regex,
 * no such rank, focus matches nothing). */
int vt_build(vtree *t, cube_profile *p, const view_opts *o);
/* vt_build for a second profile (diff): no focus/rank errors for absent ranks. */
void vt_free(vtree *t);

/* Loads the metric and fills t->vm[m].excl/incl: 0 or a view status. */
int vt_metric(vtree *t, int m);
/* Also fills t->vm[m].lexcl/lincl. */
int vt_metric_locs(vtree *t, int m);

/* Whole-program total of a metric over the selected locations. */
double vt_total(const vtree *t, int m);
/* Value of vnode v on process (index) proc, combined over its threads;
 * needs vt_metric_locs. */
double vt_proc_value(const vtree *t, int m, int v, int proc, int inclusive);

const char *vt_name(const vtree *t, int v);
/* Writes the call path (names from the root joined by sep) into a buffer
 * that grows as needed; returns it or NULL when out of memory. */
const char *vt_path(const vtree *t, int v, const char *sep, char **buf, size_t *cap);
/* " (file:line)" style call site text of v into buf ("" if unknown). */
const char *vt_site(const vtree *t, int v, char *buf, size_t len);

/* Children of v (roots for v < 0) sorted by key[] descending, into out
 * (size >= number of children); returns the count. */
int vt_sorted_children(const vtree *t, int v, const double *key, int *out);

/* The header (view_header.c): file, what was measured, the time split. */
int vt_header(vtree *t, FILE *out);

#endif
