#include "report/profile/time_bounds.h"

#include <stdlib.h>

int time_bounds_fill_max(local_profile *p)
{
    int n = p->values ? p->values_cnodes : 0;
    double *incl = malloc(((size_t)n + 1) * sizeof *incl);
    if (!incl)
        return -1;
    for (int t = 0; t < p->nthreads; t++) {
        for (int c = 0; c < n; c++)
            incl[c] = local_profile_values(p, c, t)[M_TIME];
        for (int c = n - 1; c > 0; c--) {
            int parent = p->defs->cnodes[c].parent;
            if (parent >= 0 && parent < c)
                incl[parent] += incl[c];
        }
        for (int c = 0; c < n; c++) {
            double *v = local_profile_values(p, c, t);
            if (v[M_MAX_TIME] == 0 && incl[c] > 0)
                v[M_MAX_TIME] = incl[c];
        }
    }
    free(incl);
    return 0;
}
