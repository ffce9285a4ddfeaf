/*
 * cube_defs.h - the definitions a CUBE4 file holds (metrics, regions, call
 * tree, system tree, attributes), as the caller hands them to
 * cube_writer_define(). Apart from cube_writer.h so that the parts of the
 * writer that lay them out (cw_anchor.h) need not depend on the writer
 * that calls them.
 */
#ifndef HPROF_CUBE_DEFS_H
#define HPROF_CUBE_DEFS_H

#include <stddef.h>
#include <stdint.h>

typedef struct cube_metric_def {
    const char *uniq_name; /* "time", "visits", ... */
    const char *disp_name;
    const char *dtype; /* "UINT64", "DOUBLE", "MINDOUBLE", "MAXDOUBLE" */
    const char *uom;   /* "sec", "occ", "bytes" */
    const char *descr;
    int inclusive; /* 0: rows hold exclusive values (type="EXCLUSIVE"); 1: inclusive */
    int parent;    /* parent metric index, -1 for a root metric */
} cube_metric_def;

typedef struct cube_region_def {
    const char *name;          /* demangled */
    const char *mangled_name;  /* NULL if same as name */
    const char *module;        /* path of the ELF object, "" if none */
    const char *file;          /* source file, NULL if unknown */
    long begin_line, end_line; /* -1 if unknown */
    const char *paradigm;      /* "mpi", "sampling", "measurement", ... */
    const char *role;          /* "function", "artificial", ... */
    const char *descr;         /* may be NULL */
} cube_region_def;

typedef struct cube_cnode_def {
    int parent;                /* cnode index, -1 for a root; parents precede children */
    int region;                /* callee region index */
    const char *callsite_file; /* NULL if unknown */
    long callsite_line;        /* -1 if unknown */
} cube_cnode_def;

typedef struct cube_process_def {
    int rank;
    int node;                        /* index into the node (host) names */
    int nthreads;                    /* locations of this process: threads 0..nthreads-1 */
    const char *const *thread_names; /* nthreads names, or NULL for "Master thread 0", "Thread i" */
    const char *name; /* NULL: "MPI Rank <rank>"; a location that stands for many ranks says so */
} cube_process_def;

typedef struct cube_defs {
    const cube_metric_def *metrics;
    int nmetrics;
    const cube_region_def *regions;
    int nregions;
    const cube_cnode_def *cnodes;
    int ncnodes;
    const char *machine; /* machine name */
    const char *const *nodes;
    int nnodes; /* host names */
    const cube_process_def *procs;
    int nprocs;                   /* in rank order */
    const char *const *attr_keys; /* extra <attr> pairs, may be NULL */
    const char *const *attr_values;
    int nattrs;
} cube_defs;

/* A part of a metric row made apart (cw_piece.h): the bytes as stored (raw
 * deflate for a ZCUBEX row, the encoded values for a CUBEX one), the
 * encoded bytes it stands for and their adler32. */
typedef struct cube_row_piece {
    const unsigned char *data;
    size_t len, rawlen;
    uint32_t adler;
} cube_row_piece;

#endif
