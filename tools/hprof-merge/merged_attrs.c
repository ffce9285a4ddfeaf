#include "tools/hprof-merge/merged_attrs.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Counts of the run that every rank adds to: summed over the inputs, as
 * MPI_Finalize's merge sums them (lists element by element). */
static const char *const summed_attrs[] = { "hprof::samples_counted",     "hprof::samples_in_mpi",
                                            "hprof::samples_dropped",     "hprof::samples_unwind_failed",
                                            "hprof::exact_unwind_failed", "hprof::interval_histogram" };
#define NSUMMED (int)(sizeof summed_attrs / sizeof *summed_attrs)
#define SUM_LEN 64

/* One summed list so far: n elements (-1: no input had it), or bad when
 * some input had it in another shape (it is then left out). */
typedef struct attr_sum {
    unsigned long long sum[SUM_LEN];
    char sep[SUM_LEN];
    int n, bad;
} attr_sum;

/* The ranks that gave one reason for being partial. */
typedef struct reason {
    char *why;
    int *ranks;
    int n, cap;
} reason;

typedef struct attrs_seen {
    int nin;
    int first_rank; /* the lowest rank so far, and its input's attributes */
    char **first_keys, **first_values;
    int first_n;
    attr_sum sums[NSUMMED];
    reason *reasons;
    int nreasons;
    char *now; /* every input's hprof::now, joined */
    size_t now_len;
} attrs_seen;

static int summed_index(const char *key)
{
    for (int i = 0; i < NSUMMED; i++)
        if (strcmp(key, summed_attrs[i]) == 0)
            return i;
    return -1;
}

/* Adds the integer list v ("3,0,12") to s. */
static void add_sum(attr_sum *s, const char *v)
{
    unsigned long long x[SUM_LEN];
    char sep[SUM_LEN];
    int k = 0;
    for (char *end; *v && k < SUM_LEN; v = end, k++) {
        x[k] = strtoull(v, &end, 10);
        if (end == v) {
            s->bad = 1;
            return;
        }
        sep[k] = *end;
        if (*end)
            end++;
    }
    if (*v || (s->n >= 0 && k != s->n)) {
        s->bad = 1;
        return;
    }
    for (int j = 0; j < k; j++)
        s->sum[j] += x[j], s->sep[j] = sep[j];
    s->n = k;
}

/* s as its list into buf; -1 where it has none or is bad. */
static int sum_text(const attr_sum *s, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int j = 0; j < s->n && used < len; j++)
        used +=
            (size_t)snprintf(buf + used, len - used, j + 1 < s->n ? "%llu%c" : "%llu", s->sum[j], s->sep[j]);
    return s->n > 0 && !s->bad ? 0 : -1;
}

static void free_first(attrs_seen *s)
{
    for (int i = 0; i < s->first_n; i++)
        free(s->first_keys[i]), free(s->first_values[i]);
    free(s->first_keys), free(s->first_values);
    s->first_keys = s->first_values = NULL;
    s->first_n = 0;
}

/* p's attributes become the lowest rank's. */
static int keep_first(attrs_seen *s, const cube_profile *p)
{
    free_first(s);
    s->first_keys = calloc((size_t)p->nattrs + 1, sizeof *s->first_keys);
    s->first_values = calloc((size_t)p->nattrs + 1, sizeof *s->first_values);
    if (!s->first_keys || !s->first_values)
        return -1;
    for (; s->first_n < p->nattrs; s->first_n++) {
        s->first_keys[s->first_n] = strdup(p->attrs[s->first_n].key);
        s->first_values[s->first_n] = strdup(p->attrs[s->first_n].value ? p->attrs[s->first_n].value : "");
        if (!s->first_keys[s->first_n] || !s->first_values[s->first_n])
            return s->first_n++, -1;
    }
    return 0;
}

static const char *first_attr(const attrs_seen *s, const char *key)
{
    for (int i = 0; i < s->first_n; i++)
        if (strcmp(s->first_keys[i], key) == 0)
            return s->first_values[i];
    return NULL;
}

static int add_reason(attrs_seen *s, const cube_profile *p)
{
    const char *why = cube_attr_get(p, "hprof::partial");
    if (!why)
        return 0;
    reason *r = NULL;
    for (int i = 0; i < s->nreasons && !r; i++)
        if (strcmp(s->reasons[i].why, why) == 0)
            r = &s->reasons[i];
    if (!r) {
        reason *v = realloc(s->reasons, ((size_t)s->nreasons + 1) * sizeof *v);
        if (!v)
            return -1;
        s->reasons = v;
        r = &v[s->nreasons++];
        *r = (reason){ strdup(why), NULL, 0, 0 };
        if (!r->why)
            return -1;
    }
    for (int k = 0; k < p->nprocs; k++) {
        if (r->n == r->cap) {
            int cap = r->cap ? 2 * r->cap : 16;
            int *v = realloc(r->ranks, (size_t)cap * sizeof *v);
            if (!v)
                return -1;
            r->ranks = v, r->cap = cap;
        }
        r->ranks[r->n++] = p->procs[k].rank;
    }
    return 0;
}

static int add_now(attrs_seen *s, const cube_profile *p)
{
    const char *v = cube_attr_get(p, "hprof::now");
    size_t n = v ? strlen(v) : 0;
    if (!n)
        return 0;
    char *all = realloc(s->now, s->now_len + n + 1);
    if (!all)
        return -1;
    memcpy(all + s->now_len, v, n + 1);
    s->now = all;
    s->now_len += n;
    return 0;
}

static int lowest_rank(const cube_profile *p)
{
    int low = INT_MAX;
    for (int k = 0; k < p->nprocs; k++)
        if (p->procs[k].rank < low)
            low = p->procs[k].rank;
    return low;
}

int merged_attrs_add(merged_attrs *a, const cube_profile *p)
{
    if (!a->seen) {
        if (!(a->seen = calloc(1, sizeof *a->seen)))
            return -1;
        a->seen->first_rank = INT_MAX;
        for (int i = 0; i < NSUMMED; i++)
            a->seen->sums[i].n = -1;
    }
    attrs_seen *s = a->seen;
    s->nin++;
    int low = lowest_rank(p);
    if (low < s->first_rank) {
        s->first_rank = low;
        if (keep_first(s, p) != 0)
            return -1;
    }
    for (int i = 0; i < NSUMMED; i++) {
        const char *v = cube_attr_get(p, summed_attrs[i]);
        if (v)
            add_sum(&s->sums[i], v);
    }
    return add_reason(s, p) == 0 && add_now(s, p) == 0 ? 0 : -1;
}

void merged_attrs_free(merged_attrs *a)
{
    for (int i = 0; a->owned && i < a->n; i++)
        free(a->owned[i]);
    free(a->keys), free(a->values), free(a->owned);
    attrs_seen *s = a->seen;
    if (s) {
        free_first(s);
        for (int i = 0; i < s->nreasons; i++)
            free(s->reasons[i].why), free(s->reasons[i].ranks);
        free(s->reasons), free(s->now), free(s);
    }
    a->seen = NULL;
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
static void reasons_text(attrs_seen *s, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < s->nreasons; i++) {
        reason *r = &s->reasons[i];
        qsort(r->ranks, (size_t)r->n, sizeof *r->ranks, by_int);
        if (used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s on rank%s ", used ? "; " : "", r->why,
                                     r->n > 1 ? "s" : "");
        ranges_text(r->ranks, r->n, buf, len, &used);
    }
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

/* key = a copy of value, as the next pair. */
static int put_owned(merged_attrs *a, const char *key, const char *value)
{
    if (!(a->owned[a->n] = strdup(value)))
        return -1;
    a->keys[a->n] = key, a->values[a->n] = a->owned[a->n], a->n++;
    return 0;
}

/* The lowest rank's pairs, the summed ones summed. */
static int first_pairs(merged_attrs *a)
{
    attrs_seen *s = a->seen;
    for (int i = 0; i < s->first_n; i++) {
        const char *k = s->first_keys[i];
        char buf[4096];
        int summed = summed_index(k);
        if (strcmp(k, "hprof::partial") == 0 || strcmp(k, "hprof::now") == 0)
            continue;
        if (summed < 0) {
            a->keys[a->n] = k, a->values[a->n] = s->first_values[i], a->owned[a->n++] = NULL;
        } else if (sum_text(&s->sums[summed], buf, sizeof buf) == 0 && put_owned(a, k, buf) != 0) {
            return -1;
        }
    }
    return 0;
}

int merged_attrs_make(merged_attrs *a, const int *ranks, int nranks)
{
    attrs_seen *s = a->seen;
    if (!s)
        return -1;
    int cap = s->first_n + 4;
    a->keys = calloc((size_t)cap, sizeof *a->keys);
    a->values = calloc((size_t)cap, sizeof *a->values);
    a->owned = calloc((size_t)cap, sizeof *a->owned);
    a->n = 0;
    if (!a->keys || !a->values || !a->owned || first_pairs(a) != 0)
        return -1;
    const char *why = first_attr(s, "hprof::partial"), *size = first_attr(s, "hprof::ranks");
    int job = size ? atoi(size) : 0;
    char buf[1024], gone[512];
    int nmissing = missing_ranks(ranks, nranks, job, gone, sizeof gone);
    char of_job[600] = "";
    if (nmissing > 0)
        snprintf(of_job, sizeof of_job, " of the job's %d (missing: rank%s %s)", job, nmissing > 1 ? "s" : "",
                 gone);
    char reasons[700];
    reasons_text(s, reasons, sizeof reasons);
    snprintf(buf, sizeof buf, "merged by hprof-merge from %d profiles of %d ranks%s%s%s", s->nin, nranks,
             of_job, why ? "; " : " (none partial)", why ? reasons : "");
    if (put_owned(a, "hprof::partial", buf) != 0)
        return -1;
    if (s->now && put_owned(a, "hprof::now", s->now) != 0)
        return -1;
    if (nmissing > 0 && put_owned(a, "hprof::missing_ranks", gone) != 0)
        return -1;
    return 0;
}
