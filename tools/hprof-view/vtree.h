/*
 * vtree.h - the view tree: the profile's call tree as the views show it.
 *
 * Built from the cnodes in preorder: a hidden frame (a --hide match, or by
 * default a libc/libstdc++/libhprof frame called from such a frame or from
 * an MPI function) is folded into its caller: its exclusive values go to
 * the caller and its callees become the caller's callees. Callees of one
 * caller with the same region and call site are merged. With --fold,
 * consecutive frames of one shared library become one node labelled
 * "[libname.so.N]" that takes their exclusive values (library_fold.h).
 * MPI call sites (MPI vnodes) are numbered 1, 2, ... in tree order. --focus
 * marks the subtrees of matching regions (in_focus) and their callers
 * (visible); "--focus site:N" marks call site N (the --mpi view's ids). --rank selects the locations whose values the totals combine.
 *
 * Values: vt_metric() gives each vnode's exclusive and inclusive value
 * combined over the selected locations; vt_metric_locs() adds the values
 * per process (its threads combined), for views that compare ranks. Both
 * read the file's rows one at a time (cube_scan_metric): memory is call
 * paths, or call paths x processes (taken from the reader's budget), never
 * call paths x locations.
 */
#ifndef HPROF_VTREE_H
#define HPROF_VTREE_H

#include "tools/hprof-view/view.h"
#include "tools/hprof-view/vnames.h"

typedef struct vnode {
    int region; /* region index, -1 if none */
    int cnode;  /* the first cnode folded into this node */
    int parent, first_child, next_sibling;
    int depth;
    int in_focus;      /* inside a focused subtree (all, without --focus) */
    int visible;       /* in focus, or a caller of a focused node */
    int is_mpi;        /* an MPI function */
    int mpi_caller;    /* some caller (ancestor) is an MPI function */
    int head;          /* ancestor at depth min(depth, VT_PATH_HEAD - 1) */
    const char *label; /* --fold: "[libstdc++.so.6]" for a folded run of frames, else NULL */
    int site_id;       /* MPI call sites: 1, 2, ... in tree order (--focus site:N), else 0 */
} vnode;

typedef struct vmetric {
    double *excl, *incl;   /* [vnode], over the selected locations */
    double *lexcl, *lincl; /* [vnode * nprocs], all ranks; NULL until asked */
} vmetric;

typedef struct vtree {
    cube_profile *p;
    const view_opts *o;
    vnode *v;
    int nv;
    int *roots;
    int nroots;
    int *map;                 /* cnode -> vnode */
    char *locsel;             /* [loc]: 1 if selected by --rank */
    vmetric *vm;              /* [metric] */
    int focused;              /* --focus given */
    vnames names;             /* printed names (full, cut), name classes */
    const char **short_names; /* [region]: the name views print (short_name.h) */
    char **fold_label;        /* [region]: "[module]" when --fold folds its frames, else NULL */
} vtree;

/* 0, VIEW_FAILED, or VIEW_BAD_USAGE with the reason in o->err (bad regex,
 * no such rank, focus matches nothing). */
/* hprof's single root region, named after the program: views start below
 * it (its children are their roots) and CSV paths leave it out. */
int vt_is_program_root(const cube_profile *p, int cnode);
int vt_build(vtree *t, cube_profile *p, const view_opts *o);
/* vt_build for a second profile (diff): no focus/rank errors for absent ranks. */
void vt_free(vtree *t);

/* Loads the metric and fills t->vm[m].excl/incl: 0 or a view status. */
int vt_metric(vtree *t, int m);
/* Also fills t->vm[m].lexcl/lincl; VIEW_BAD_FILE (reason in o->err) when
 * call paths x processes is more than the file can honestly hold. */
int vt_metric_locs(vtree *t, int m);

/* Every location's exclusive and inclusive values of metric m per vnode,
 * [vnode * nlocs + location], into *ex and *in (malloc'd, the caller
 * frees them), whatever --rank selects: exports that keep the locations
 * apart. 0 or a view status (VIEW_BAD_FILE past the reader's budget). */
int vt_metric_by_loc(vtree *t, int m, double **ex, double **in);
/* Whole-program total of a metric over the selected locations. */
double vt_total(const vtree *t, int m);
/* Value of vnode v on process (index) proc, combined over its threads;
 * needs vt_metric_locs. */
double vt_proc_value(const vtree *t, int m, int v, int proc, int inclusive);

/* The name views print (short unless --long-names; cut past VIEW_NAME_MAX
 * bytes), and the file's own (cut the same way); "?" if none. */
const char *vt_name(const vtree *t, int v);
const char *vt_full_name(const vtree *t, int v);

/* A call path printed on one line (--folded, --csv, --ranks, --hotspots,
 * --diff) shows at most VT_PATH_HEAD frames from the root, a marker for
 * the frames left out, and the last VT_PATH_TAIL frames: the output stays
 * proportional to the call tree however deep it is. */
#define VT_PATH_HEAD 8
#define VT_PATH_TAIL 56
#define VT_PATH_FRAMES (VT_PATH_HEAD + 1 + VT_PATH_TAIL)
/* The marker standing for n frames left out ("[... 1234 frames ...]"). */
const char *vt_cut_marker(char *buf, size_t len, long n);
/* The frames of v's path from the root into frames[VT_PATH_FRAMES]: vnode
 * indexes, -1 for the marker; the number left out in *cut. O(VT_PATH_FRAMES).
 * Returns the number of entries. */
int vt_path_frames(const vtree *t, int v, int *frames, long *cut);
/* Writes the call path (names from the root joined by sep, cut as above)
 * into a buffer that grows as needed; returns it or NULL when out of memory. */
const char *vt_path(const vtree *t, int v, const char *sep, char **buf, size_t *cap);
/* " (file:line)" style call site text of v into buf ("" if unknown). */
const char *vt_site(const vtree *t, int v, char *buf, size_t len);

/* Children of v (roots for v < 0) sorted by key[] descending, into out
 * (size >= number of children); returns the count. */
int vt_sorted_children(const vtree *t, int v, const double *key, int *out);

/* The header (view_header.c): file, what was measured, the time split. */
int vt_header(vtree *t, FILE *out);
/* The same with the time split wrapped at width columns (0: one line). */
int vt_header_width(vtree *t, FILE *out, int width);

#endif
