/*
 * vnames.h - region names as the views use them, computed once per region
 * so that no view pays for a name's length once per call path: a file
 * holds a long name once but may reference it from every call path, and
 * printing, hashing or matching it each time would make output and time
 * grow with names x call paths instead of with the file.
 *
 * Printed names are cut past VIEW_NAME_MAX bytes ("...[+N bytes]"); names
 * are compared by class (regions with equal names share the class of the
 * first of them) and by a hash of the whole name.
 */
#ifndef HPROF_VNAMES_H
#define HPROF_VNAMES_H

#include <stddef.h>
#include <stdint.h>
#include "report/cube/reader/cube_reader.h"

#define VIEW_NAME_MAX 1024

typedef struct vnames {
    const char **shown; /* [region]: the name as printed */
    char *owned;        /* [region]: shown[r] was allocated here */
    int *id;            /* [region]: name class (a region index) */
    uint64_t *hash;     /* [region]: hash of the whole name */
    int n;
} vnames;

/* 0, or -1 when out of memory. */
int vnames_build(vnames *nm, const cube_profile *p);
void vnames_free(vnames *nm);

/* The printed form of any name: name itself when short enough, else its
 * first VIEW_NAME_MAX bytes (whole UTF-8 characters) and "...[+N bytes]"
 * in buf (len > VIEW_NAME_MAX + 32). Reads at most VIEW_NAME_MAX + 1 bytes
 * of a long name. */
const char *view_cut_name(const char *name, char *buf, size_t len);

#endif
