#include "profile_file.h"

#include <stdlib.h>

#include "metrics.h"

static const char *paradigm_of(int kind)
{
    return kind == REGION_MPI ? "mpi" : kind == REGION_ARTIFICIAL ? "measurement" : "sampling";
}

int profile_file_define(cube_writer *w, const defs *g, const char *const *nodes, int nnodes,
                        const cube_process_def *procs, int nprocs, const char *const *attr_keys,
                        const char *const *attr_values, int nattrs)
{
    cube_region_def *regions = calloc((size_t)g->nregions + 1, sizeof *regions);
    cube_cnode_def *cnodes = calloc((size_t)g->ncnodes + 1, sizeof *cnodes);
    int rc = -1;
    if (regions && cnodes) {
        for (int i = 0; i < g->nregions; i++) {
            const def_region *r = &g->regions[i];
            regions[i] = (cube_region_def){
                defs_str(g, r->name), defs_str(g, r->mangled), defs_str(g, r->module),
                defs_str(g, r->file), r->begin_line, -1, paradigm_of(r->kind),
                r->kind == REGION_ARTIFICIAL ? "artificial" : "function", NULL };
        }
        for (int i = 0; i < g->ncnodes; i++) {
            const def_cnode *c = &g->cnodes[i];
            cnodes[i] = (cube_cnode_def){ c->parent, c->region, defs_str(g, c->cs_file), c->cs_line };
        }
        cube_defs d = { metrics_defs(), metrics_count(), regions, g->nregions, cnodes, g->ncnodes,
                        "machine", nodes, nnodes, procs, nprocs, attr_keys, attr_values, nattrs };
        rc = cube_writer_define(w, &d);
    }
    free(regions);
    free(cnodes);
    return rc;
}
