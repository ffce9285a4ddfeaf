#include "tools/hprof-merge/merged_attrs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Counts of the run that every rank adds to: summed over the inputs, as
 * MPI_Finalize's merge sums them (lists element by element). */
static const char *const summed_attrs[] = { "hprof::samples_counted",     "hprof::samples_in_mpi",
                                            "hprof::samples_dropped",     "hprof::samples_unwind_failed",
                                            "hprof::exact_unwind_failed", "hprof::interval_histogram" };

static int is_summed(const char *key)
{
    for (size_t i = 0; i < sizeof summed_attrs / sizeof *summed_attrs; i++)
        if (strcmp(key, summed_attrs[i]) == 0)
            return 1;
    return 0;
}

/* The sum of key's integer lists ("3,0,12") over the inputs into buf;
 * -1 where some input has it in another shape (it is then left out). */
static int sum_attr(const cube_profile *const *in, int nin, const char *key, char *buf, size_t len)
{
    unsigned long long sum[64] = { 0 };
    char sep[64] = "";
    int n = -1;
    for (int i = 0; i < nin; i++) {
        const char *v = cube_attr_get(in[i], key);
        if (!v)
            continue;
        int k = 0;
        for (char *end; *v && k < 64; v = end, k++) {
            unsigned long long x = strtoull(v, &end, 10);
            if (end == v)
                return -1;
            sum[k] += x;
            sep[k] = *end;
            if (*end)
                end++;
        }
        if (*v || (n >= 0 && k != n))
            return -1;
        n = k;
    }
    size_t used = 0;
    buf[0] = '\0';
    for (int j = 0; j < n && used < len; j++)
        used += (size_t)snprintf(buf + used, len - used, j + 1 < n ? "%llu%c" : "%llu", sum[j], sep[j]);
    return n > 0 ? 0 : -1;
}

void merged_attrs_free(merged_attrs *a)
{
    for (int i = 0; a->owned && i < a->n; i++)
        free(a->owned[i]);
    free(a->keys), free(a->values), free(a->owned);
}

/* "1, 3, 5-7" of the ranks below the job's size that ranks[] (sorted)
 * lacks, into buf; 0 when none is missing. */
static int missing_ranks(const int *ranks, int n, int job, char *buf, size_t len)
{
    int missing = 0, k = 0;
    size_t used = 0;
    buf[0] = '\0';
    for (int r = 0; r < job; r++) {
        while (k < n && ranks[k] < r)
            k++;
        if (k < n && ranks[k] == r)
            continue;
        int last = r;
        while (last + 1 < job && !(k < n && ranks[k] == last + 1))
            last++;
        if (used < len)
            used += (size_t)snprintf(buf + used, len - used, last > r ? "%s%d-%d" : "%s%d",
                                     missing ? ", " : "", r, last);
        missing += last - r + 1;
        r = last;
    }
    return missing;
}

int merged_attrs_make(merged_attrs *a, const cube_profile *const *in, int nin, const cube_profile *first,
                      const int *ranks, int nranks)
{
    int cap = first->nattrs + 3;
    a->keys = calloc((size_t)cap, sizeof *a->keys);
    a->values = calloc((size_t)cap, sizeof *a->values);
    a->owned = calloc((size_t)cap, sizeof *a->owned);
    a->n = 0;
    if (!a->keys || !a->values || !a->owned)
        return -1;
    for (int i = 0; i < first->nattrs; i++) {
        const char *k = first->attrs[i].key;
        char buf[4096];
        if (strcmp(k, "hprof::partial") == 0)
            continue;
        if (is_summed(k)) {
            if (sum_attr(in, nin, k, buf, sizeof buf) != 0)
                continue;
            a->owned[a->n] = strdup(buf);
            if (!a->owned[a->n])
                return -1;
            a->keys[a->n] = k, a->values[a->n] = a->owned[a->n], a->n++;
        } else {
            a->keys[a->n] = k, a->values[a->n] = first->attrs[i].value, a->n++;
        }
    }
    const char *why = cube_attr_get(first, "hprof::partial"), *size = cube_attr_get(first, "hprof::ranks");
    int job = size ? atoi(size) : 0;
    char buf[1024], gone[512];
    int nmissing = missing_ranks(ranks, nranks, job, gone, sizeof gone);
    char of_job[600] = "";
    if (nmissing > 0)
        snprintf(of_job, sizeof of_job, " of the job's %d (missing: rank%s %s)", job, nmissing > 1 ? "s" : "",
                 gone);
    snprintf(buf, sizeof buf, "merged by hprof-merge from %d profiles of %d ranks%s%s%s", nin, nranks, of_job,
             why ? "; the lowest rank's: " : " (none partial)", why ? why : "");
    a->owned[a->n] = strdup(buf);
    if (!a->owned[a->n])
        return -1;
    a->keys[a->n] = "hprof::partial", a->values[a->n] = a->owned[a->n], a->n++;
    if (nmissing > 0) {
        a->owned[a->n] = strdup(gone);
        if (!a->owned[a->n])
            return -1;
        a->keys[a->n] = "hprof::missing_ranks", a->values[a->n] = a->owned[a->n], a->n++;
    }
    return 0;
}
