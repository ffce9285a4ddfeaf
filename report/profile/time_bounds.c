#include "report/profile/time_bounds.h"

#include <stdlib.h>

#include "report/profile/metrics.h"

static double *values_at(double *values, int cnode, int thread, int nthreads, int nmetrics)
{
    return values + ((size_t)cnode * (size_t)nthreads + (size_t)thread) * (size_t)nmetrics;
}

int time_bounds_fill_max(double *values, int ncnodes, int nthreads, int nmetrics, const defs *d)
{
    int n = values ? ncnodes : 0;
    double *incl = malloc(((size_t)n + 1) * sizeof *incl);
    if (!incl)
        return -1;
    for (int t = 0; t < nthreads; t++) {
        for (int c = 0; c < n; c++)
            incl[c] = values_at(values, c, t, nthreads, nmetrics)[M_TIME];
        for (int c = n - 1; c > 0; c--) {
            int parent = d->cnodes[c].parent;
            if (parent >= 0 && parent < c)
                incl[parent] += incl[c];
        }
        for (int c = 0; c < n; c++) {
            double *v = values_at(values, c, t, nthreads, nmetrics);
            if (v[M_MAX_TIME] == 0 && incl[c] > 0)
                v[M_MAX_TIME] = incl[c];
        }
    }
    free(incl);
    return 0;
}
