/*
 * defs.h - the definitions of a profile: strings, regions and call-tree
 * nodes (cnodes), each unified on insert, so that adding the same region or
 * the same (parent, region, call site) twice yields the same id; or, with
 * call sites merged (Score-P's call tree: one child per callee region
 * under a parent), the same (parent, region), the cnode keeping a call
 * site only where every site merged into it agrees. Ranks
 * exchange definitions in serialized form and unify them straight from the
 * received bytes (defs_absorb_wire).
 */
#ifndef HPROF_DEFS_H
#define HPROF_DEFS_H

#include <stddef.h>

#include "core/idset.h"

/* REGION_PROGRAM: the call tree's root, named after the program;
 * REGION_PYTHON: a Python function (unwind/python/py_splice.h). */
enum def_region_kind {
    REGION_FUNCTION,
    REGION_MPI,
    REGION_ARTIFICIAL,
    REGION_PROGRAM,
    REGION_PYTHON
};

typedef struct def_region {
    int name, mangled, module, file; /* string ids, -1 = none */
    int begin_line;                  /* -1 = unknown */
    int kind;                        /* enum def_region_kind */
} def_region;

typedef struct def_cnode {
    int parent; /* cnode id, -1 = a root */
    int region;
    int cs_file, cs_line; /* call site in the parent; -1 = unknown */
} def_cnode;

typedef struct defs {
    char **strings;
    int nstrings, strings_cap;
    def_region *regions;
    int nregions, regions_cap;
    def_cnode *cnodes;
    int ncnodes, cnodes_cap;
    struct hmap *string_ids, *region_ids;
    idset cnode_ids; /* cnodes by (parent, region[, call site]) */
    int merge_sites; /* call sites not part of a cnode's key */
} defs;

/* merge_sites: 1 for Score-P's shape, 0 for a cnode per call site. Every
 * defs that absorbs another's wire must be made with the same value. */
defs *defs_new(int merge_sites);
void defs_free(defs *d);

/* Each returns the id of the (possibly existing) entry, or -1 on error
 * (defs_string also returns -1 for NULL). */
int defs_string(defs *d, const char *s);
int defs_string_n(defs *d, const char *s, size_t len); /* s need not end in NUL */
int defs_region(defs *d, const def_region *r);
int defs_cnode(defs *d, const def_cnode *c);

const char *defs_str(const defs *d, int id); /* NULL for -1 */

/* Room for this many more strings, regions and cnodes, so that adding them
 * reallocates and rehashes nothing (a hint: 0 or -1, nothing lost on -1). */
int defs_reserve(defs *d, int nstrings, int nregions, int ncnodes);

int defs_serialize(const defs *d, char **buf, size_t *len);

/* Adds the definitions serialized in buf to d, without building them
 * apart first: ids already in d keep their values, new ones are appended.
 * *cnode_map (malloc'd, *ncnodes entries) receives the id in d of each
 * cnode of buf. 0, or -1 for a malformed buffer or lack of memory (d may
 * then hold part of buf; *cnode_map is NULL). */
int defs_absorb_wire(defs *d, const char *buf, size_t len, int **cnode_map, int *ncnodes);

#endif
