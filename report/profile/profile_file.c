#include "report/profile/profile_file.h"

#include <stdlib.h>

#include <string.h>

#include "core/fn_table.h"
#include "report/profile/metrics.h"
#include "report/profile/mpi_roles.h"
#include "report/profile/remapping_spec.h"

static const char *paradigm_of(int kind)
{
    return kind == REGION_MPI        ? "mpi"
           : kind == REGION_FUNCTION ? "sampling"
           : kind == REGION_PYTHON   ? "python"
                                     : "measurement";
}

/* Score-P puts every MPI region in module "MPI": cubelib's tools and
 * remapping specs find MPI by it (cube_regioninfo, Scalasca's metrics). */
static const char *module_of(const defs *g, const def_region *r)
{
    return r->kind == REGION_MPI ? "MPI" : defs_str(g, r->module);
}

/* cubelib's cube_regioninfo (and Scalasca 1's tools) tell MPI regions by
 * the description "MPI", as EPIK wrote them; Score-P leaves it empty. */
static const char *descr_of(const def_region *r)
{
    return r->kind == REGION_MPI       ? "MPI"
           : r->kind == REGION_PROGRAM ? "The program: root of the call tree"
                                       : NULL;
}

static const char *fn_group(const char *name)
{
    for (int i = 0; name && i < hprof_fn_count; i++)
        if (strcmp(hprof_fn_table[i].name, name) == 0)
            return hprof_fn_table[i].group;
    return NULL;
}

static const char *role_of(const def_region *r, const char *name)
{
    if (r->kind == REGION_MPI)
        return mpi_region_role(name, fn_group(name));
    return r->kind == REGION_FUNCTION || r->kind == REGION_PYTHON ? "function" : "artificial";
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
            const char *name = defs_str(g, r->name);
            regions[i] = (cube_region_def){
                name, defs_str(g, r->mangled), module_of(g, r),  defs_str(g, r->file), r->begin_line,
                -1,   paradigm_of(r->kind),    role_of(r, name), descr_of(r)
            };
        }
        for (int i = 0; i < g->ncnodes; i++) {
            const def_cnode *c = &g->cnodes[i];
            cnodes[i] = (cube_cnode_def){ c->parent, c->region, defs_str(g, c->cs_file), c->cs_line };
        }
        cube_defs d = { metrics_defs(), metrics_count(), regions,     g->nregions, cnodes,
                        g->ncnodes,     "machine",       nodes,       nnodes,      procs,
                        nprocs,         attr_keys,       attr_values, nattrs };
        rc = cube_writer_define(w, &d);
    }
    if (rc == 0)
        rc = cube_writer_add_member(w, REMAPPING_SPEC_MEMBER, hprof_remapping_spec,
                                    strlen(hprof_remapping_spec));
    free(regions);
    free(cnodes);
    return rc;
}
