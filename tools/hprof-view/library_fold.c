/* library_fold.c - regions that --fold folds, by module (library_fold.h). */
#include "tools/hprof-view/library_fold.h"
#include "tools/hprof-view/view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *library_of_region(const cube_profile *p, int region)
{
    const cube_region *r = region >= 0 && region < p->nregions ? &p->regions[region] : NULL;
    /* hprof writes the object as the region's file (mod) when it has no
     * source file, and as hprof::module beside a source file */
    const char *obj = r ? (r->module && r->module[0] ? r->module : r->mod) : NULL;
    if (!obj || !obj[0] || view_region_is_mpi(p, region))
        return NULL;
    const char *base = strrchr(obj, '/');
    base = base ? base + 1 : obj;
    /* a shared object: "libfoo.so" or "libfoo.so.6", not the program */
    const char *so = strstr(base, ".so");
    return so && (so[3] == '\0' || so[3] == '.') ? base : NULL;
}

/* spec is "libs" or a comma list of module name prefixes. */
static int wanted(const char *spec, const char *lib)
{
    if (strcmp(spec, "libs") == 0)
        return 1;
    for (const char *s = spec; *s;) {
        size_t n = strcspn(s, ",");
        if (n && strncmp(lib, s, n) == 0)
            return 1;
        s += n + (s[n] == ',');
    }
    return 0;
}

char **library_fold_labels(const cube_profile *p, const char *spec)
{
    char **labels = calloc((size_t)p->nregions + 1, sizeof *labels);
    for (int r = 0; labels && r < p->nregions; r++) {
        const char *lib = library_of_region(p, r);
        if (!lib || !wanted(spec, lib))
            continue;
        size_t n = strlen(lib) + 3;
        if (!(labels[r] = malloc(n))) {
            library_fold_free(p, labels);
            return NULL;
        }
        snprintf(labels[r], n, "[%s]", lib);
    }
    return labels;
}

void library_fold_free(const cube_profile *p, char **labels)
{
    for (int r = 0; labels && r < p->nregions; r++)
        free(labels[r]);
    free(labels);
}
