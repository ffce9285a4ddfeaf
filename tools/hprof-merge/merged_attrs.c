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

/* Where each input's threads were at a snapshot (hprof::now, one entry
 * per thread that names its rank): every input's, joined; NULL for none. */
static char *joined_now(const cube_profile *const *in, int nin)
{
    size_t len = 1;
    for (int i = 0; i < nin; i++) {
        const char *v = cube_attr_get(in[i], "hprof::now");
        len += v ? strlen(v) : 0;
    }
    if (len == 1)
        return NULL;
    char *all = malloc(len);
    if (!all)
        return NULL;
    size_t used = 0;
    for (int i = 0; i < nin; i++) {
        const char *v = cube_attr_get(in[i], "hprof::now");
        size_t n = v ? strlen(v) : 0;
        memcpy(all + used, v ? v : "", n);
        used += n;
    }
    all[used] = '\0';
    return all;
}

void merged_attrs_free(merged_attrs *a)
{
    for (int i = 0; a->owned && i < a->n; i++)
        free(a->owned[i]);
    free(a->keys), free(a->values), free(a->owned);
}

static int by_int(const void *x, const void *y)
{
    return (*(const int *)x > *(const int *)y) - (*(const int *)x < *(const int *)y);
}

/* "1, 3, 5-7" of the sorted v[0..n) into buf at *used. */
static void ranges_text(const int *v, int n, char *buf, size_t len, size_t *used)
{
    for (int i = 0; i < n; i++) {
        int j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1)
            j++;
        if (*used < len)
            *used += (size_t)snprintf(buf + *used, len - *used, j > i ? "%s%d-%d" : "%s%d", i ? ", " : "",
                                      v[i], v[j]);
        i = j;
    }
}

/* "MPI_Abort on rank 2; Terminated on ranks 0-1, 3": each reason the
 * inputs give for being partial, with the ranks that gave it. */
static void reasons_text(const cube_profile *const *in, int nin, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    int total = 0;
    for (int i = 0; i < nin; i++)
        total += in[i]->nprocs;
    int *v = malloc(((size_t)total + 1) * sizeof *v);
    for (int i = 0; v && i < nin; i++) {
        const char *why = cube_attr_get(in[i], "hprof::partial");
        int seen = !why;
        for (int j = 0; j < i && !seen; j++) {
            const char *w = cube_attr_get(in[j], "hprof::partial");
            seen = w && strcmp(w, why) == 0;
        }
        if (seen)
            continue;
        int n = 0;
        for (int j = i; j < nin; j++) {
            const char *w = cube_attr_get(in[j], "hprof::partial");
            for (int k = 0; w && strcmp(w, why) == 0 && k < in[j]->nprocs; k++)
                v[n++] = in[j]->procs[k].rank;
        }
        qsort(v, (size_t)n, sizeof *v, by_int);
        if (used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s on rank%s ", used ? "; " : "", why,
                                     n > 1 ? "s" : "");
        ranges_text(v, n, buf, len, &used);
    }
    free(v);
}

/* "1, 4-6" of the ranks below the job's size that ranks[] (sorted) lacks,
 * into buf; how many they are. */
static int missing_ranks(const int *ranks, int n, int job, char *buf, size_t len)
{
    int *gone = malloc(((size_t)(job > 0 ? job : 0) + 1) * sizeof *gone), missing = 0, k = 0;
    size_t used = 0;
    buf[0] = '\0';
    for (int r = 0; gone && r < job; r++) {
        while (k < n && ranks[k] < r)
            k++;
        if (!(k < n && ranks[k] == r))
            gone[missing++] = r;
    }
    if (gone)
        ranges_text(gone, missing, buf, len, &used);
    free(gone);
    return missing;
}

int merged_attrs_make(merged_attrs *a, const cube_profile *const *in, int nin, const cube_profile *first,
                      const int *ranks, int nranks)
{
    int cap = first->nattrs + 4;
    a->keys = calloc((size_t)cap, sizeof *a->keys);
    a->values = calloc((size_t)cap, sizeof *a->values);
    a->owned = calloc((size_t)cap, sizeof *a->owned);
    a->n = 0;
    if (!a->keys || !a->values || !a->owned)
        return -1;
    for (int i = 0; i < first->nattrs; i++) {
        const char *k = first->attrs[i].key;
        char buf[4096];
        if (strcmp(k, "hprof::partial") == 0 || strcmp(k, "hprof::now") == 0)
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
    char reasons[700];
    reasons_text(in, nin, reasons, sizeof reasons);
    snprintf(buf, sizeof buf, "merged by hprof-merge from %d profiles of %d ranks%s%s%s", nin, nranks, of_job,
             why ? "; " : " (none partial)", why ? reasons : "");
    a->owned[a->n] = strdup(buf);
    if (!a->owned[a->n])
        return -1;
    a->keys[a->n] = "hprof::partial", a->values[a->n] = a->owned[a->n], a->n++;
    if ((a->owned[a->n] = joined_now(in, nin)) != NULL)
        a->keys[a->n] = "hprof::now", a->values[a->n] = a->owned[a->n], a->n++;
    if (nmissing > 0) {
        a->owned[a->n] = strdup(gone);
        if (!a->owned[a->n])
            return -1;
        a->keys[a->n] = "hprof::missing_ranks", a->values[a->n] = a->owned[a->n], a->n++;
    }
    return 0;
}
