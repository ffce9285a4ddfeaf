/* vnames.c - printed names, name classes and hashes per region (vnames.h). */
#include "tools/hprof-view/vnames.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *raw_name(const cube_profile *p, int r)
{
    return p->regions[r].name ? p->regions[r].name : "?";
}

const char *view_cut_name(const char *name, char *buf, size_t len)
{
    size_t n = strnlen(name, VIEW_NAME_MAX + 1);
    if (n <= VIEW_NAME_MAX)
        return name;
    size_t keep = VIEW_NAME_MAX;
    while (keep > 0 && ((unsigned char)name[keep] & 0xc0) == 0x80)
        keep--; /* never half a UTF-8 character */
    snprintf(buf, len, "%.*s...[+%zu bytes]", (int)keep, name, strlen(name + keep));
    return buf;
}

static uint64_t name_hash(const char *s, size_t *len)
{
    uint64_t h = 1469598103934665603ull;
    const char *c = s;
    for (; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    *len = (size_t)(c - s);
    return h ^ (h >> 29);
}

/* Classes: an open-addressing table of class representatives; each name is
 * read a bounded number of times, so the whole costs O(size of the names). */
static int classify(vnames *nm, const cube_profile *p)
{
    size_t hsize = 16, *len = malloc(sizeof *len * ((size_t)nm->n + 1));
    while (hsize < 2 * (size_t)nm->n)
        hsize *= 2;
    int *table = malloc(sizeof *table * hsize);
    if (!table || !len) {
        free(table), free(len);
        return -1;
    }
    memset(table, 0xff, sizeof *table * hsize);
    for (int r = 0; r < nm->n; r++) {
        nm->hash[r] = name_hash(raw_name(p, r), &len[r]);
        size_t h = nm->hash[r] & (hsize - 1);
        for (; table[h] >= 0; h = (h + 1) & (hsize - 1)) {
            int q = table[h];
            if (nm->hash[q] == nm->hash[r] && len[q] == len[r] && strcmp(raw_name(p, q), raw_name(p, r)) == 0)
                break;
        }
        if (table[h] < 0)
            table[h] = r;
        nm->id[r] = table[h];
    }
    free(table), free(len);
    return 0;
}

int vnames_build(vnames *nm, const cube_profile *p)
{
    memset(nm, 0, sizeof *nm);
    nm->n = p->nregions;
    size_t n = (size_t)p->nregions + 1;
    nm->shown = calloc(n, sizeof *nm->shown);
    nm->owned = calloc(n, 1);
    nm->id = malloc(sizeof *nm->id * n);
    nm->hash = malloc(sizeof *nm->hash * n);
    if (!nm->shown || !nm->owned || !nm->id || !nm->hash || classify(nm, p) < 0)
        return -1;
    char buf[VIEW_NAME_MAX + 64];
    for (int r = 0; r < nm->n; r++) {
        const char *s = view_cut_name(raw_name(p, r), buf, sizeof buf);
        if (s == buf) {
            if (!(nm->shown[r] = strdup(buf)))
                return -1;
            nm->owned[r] = 1;
        } else {
            nm->shown[r] = s;
        }
    }
    return 0;
}

void vnames_free(vnames *nm)
{
    for (int r = 0; nm->owned && r < nm->n; r++)
        if (nm->owned[r])
            free((char *)nm->shown[r]);
    free(nm->shown), free(nm->owned), free(nm->id), free(nm->hash);
    memset(nm, 0, sizeof *nm);
}
