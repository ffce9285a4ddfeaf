/*
 * cube_model.h - the in-memory model of a CUBE4 profile that cube_open()
 * fills (definitions and loaded values) and the row callback of
 * cube_scan_metric(). Apart from cube_reader.h so that the parts of the
 * reader (cr_anchor, cr_tree, cr_values) share the model without depending
 * on the reader that calls them.
 */
#ifndef HPROF_CUBE_MODEL_H
#define HPROF_CUBE_MODEL_H

/* How values combine along the call tree and across locations. */
enum cube_aggr {
    CUBE_AGGR_SUM,
    CUBE_AGGR_MIN,
    CUBE_AGGR_MAX,
    CUBE_AGGR_RATIO
};

/* How the file stores a metric (the metric's type attribute). */
enum cube_kind {
    CUBE_KIND_EXCLUSIVE,
    CUBE_KIND_INCLUSIVE,
    CUBE_KIND_SIMPLE,
    CUBE_KIND_DERIVED
};

typedef struct cube_metric {
    int id; /* id in the file (names <id>.data) */
    char *uniq_name, *disp_name, *dtype, *uom, *descr, *url;
    int kind;            /* enum cube_kind */
    int aggr;            /* enum cube_aggr */
    int is_integer;      /* integer dtype: views print integers */
    int parent;          /* metric index, -1 for a root */
    int loadable;        /* dtype and kind readable: values can be loaded */
    int loaded;          /* 1: values usable (excl/incl NULL means all zero) */
    const char *note;    /* why not loadable (static string), else NULL */
    double *excl, *incl; /* [cnode * nlocs + loc] */
    int num, den;        /* CUBE_AGGR_RATIO: the metrics divided; -1 otherwise */
    int ghost;           /* viztype GHOST (cubelib's hidden helpers, e.g. cube_remap2's
                             * bytes_sent): values in ghost_<id>.index/.data */
} cube_metric;

typedef struct cube_region {
    int id;
    char *name, *mangled_name, *mod, *paradigm, *role, *descr, *url;
    char *module;    /* ELF object (hprof's region attr hprof::module), NULL if none */
    long begin, end; /* -1 if unknown */
} cube_region;

typedef struct cube_cnode {
    int id;                        /* id in the file */
    int region;                    /* region index, -1 if the file names none */
    int parent;                    /* cnode index, -1 for a root */
    int first_child, next_sibling; /* cnode indexes, -1 for none */
    int depth;                     /* 0 for a root */
    long line;                     /* call-site line, -1 if unknown */
    char *mod;                     /* call-site file, NULL if unknown */
} cube_cnode;

typedef struct cube_sysnode {
    int id;
    char *name, *klass; /* klass: "machine", "node", ... */
    int parent;         /* sysnode index, -1 for a root */
} cube_sysnode;

typedef struct cube_process {
    int id;
    char *name;
    int rank;
    int sysnode; /* enclosing sysnode index, -1 if none */
} cube_process;

typedef struct cube_location {
    int id;
    char *name;
    int rank;    /* the file's rank of the location */
    int process; /* process index */
    int thread;  /* index of the location within its process */
} cube_location;

typedef struct cube_attr {
    char *key, *value;
} cube_attr;

typedef struct cube_profile {
    char *version; /* the cube element's version */
    cube_attr *attrs;
    int nattrs; /* top-level <attr> pairs */
    cube_metric *metrics;
    int nmetrics; /* document order: parents first */
    cube_region *regions;
    int nregions;
    cube_cnode *cnodes;
    int ncnodes; /* document order: preorder */
    int *roots;
    int nroots; /* root cnode indexes */
    cube_sysnode *sysnodes;
    int nsysnodes;
    cube_process *procs;
    int nprocs;
    cube_location *locs;
    int nlocs; /* in data column order */
    char **notes;
    int nnotes;              /* non-fatal remarks */
    struct cube_source *src; /* the open file (private) */
} cube_profile;

/* One row: the values of every location at one cnode, as the file stores
 * them (inclusive for CUBE_KIND_INCLUSIVE metrics, else exclusive). */
typedef void (*cube_row_fn)(void *ctx, int cnode, const double *row);

#endif
