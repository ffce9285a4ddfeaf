/*
 * view_now.c - where every thread of a snapshot was (metric now, written
 * by hprof-snapshot: lib/live_snapshot.h), as one tree of current places
 * with rank lists, as STAT shows a hung job:
 *
 *   ranks 0-2     main > wait_all > MPI_Barrier        61.2 s
 *   rank 3        main > wait_for_peer > MPI_Recv      61.2 s
 *
 * A place is a call path; its seconds are the time in the MPI call under
 * way, or since the last sample where the thread computed. Groups come
 * longest wait first. --json gives the same as a list of groups.
 */
#include "tools/hprof-view/view.h"

#include <stdlib.h>
#include <string.h>

typedef struct place {
    int cnode;
    int *ranks; /* the locations' ranks, sorted, threads of one rank once */
    int nranks;
    double lo, hi; /* seconds over the group */
    int threads;
} place;

static int by_int(const void *a, const void *b)
{
    return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

static int by_wait(const void *a, const void *b)
{
    const place *x = a, *y = b;
    if (x->hi != y->hi)
        return x->hi < y->hi ? 1 : -1;
    return x->ranks[0] - y->ranks[0];
}

/* The cnodes from c up to, not with, the program's root (a region of
 * paradigm measurement, as the CSV leaves it out): chain[0] is c. */
static int chain_of(const cube_profile *p, int c, int *chain, int max)
{
    int n = 0;
    for (; c >= 0 && n < max; c = p->cnodes[c].parent) {
        int r = p->cnodes[c].region;
        if (p->cnodes[c].parent < 0 && n > 0 && r >= 0 && p->regions[r].paradigm &&
            strcmp(p->regions[r].paradigm, "measurement") == 0)
            break;
        chain[n++] = c;
    }
    return n;
}

/* "main > solve > MPI_Barrier" of cnode c into buf. */
static void path_of(const cube_profile *p, int c, const char *sep, char *buf, size_t len)
{
    int chain[256], n = chain_of(p, c, chain, 256);
    size_t used = 0;
    buf[0] = '\0';
    for (int i = n - 1; i >= 0 && used < len; i--) {
        int r = p->cnodes[chain[i]].region;
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i == n - 1 ? "" : sep,
                                 r >= 0 && p->regions[r].name ? p->regions[r].name : "?");
    }
}

/* "0-2, 5" of the sorted ranks into buf. */
static void ranks_text(const int *v, int n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < len; i++) {
        int j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1)
            j++;
        used +=
            (size_t)snprintf(buf + used, len - used, j > i ? "%s%d-%d" : "%s%d", i ? ", " : "", v[i], v[j]);
        i = j;
    }
}

/* The places of metric m: one a cnode with a value at some location. */
static place *places_of(const cube_profile *p, int m, int *nplaces)
{
    place *v = calloc((size_t)p->ncnodes + 1, sizeof *v);
    int n = 0;
    for (int c = 0; v && c < p->ncnodes; c++) {
        place g = { c, NULL, 0, 0, 0, 0 };
        for (int l = 0; l < p->nlocs; l++) {
            double s = cube_value(p, m, c, l, 0);
            if (s <= 0)
                continue;
            if (!g.ranks && !(g.ranks = malloc((size_t)p->nlocs * sizeof *g.ranks)))
                break;
            g.ranks[g.nranks++] = p->procs[p->locs[l].process].rank;
            g.lo = g.threads == 0 || s < g.lo ? s : g.lo;
            g.hi = s > g.hi ? s : g.hi;
            g.threads++;
        }
        if (!g.ranks)
            continue;
        qsort(g.ranks, (size_t)g.nranks, sizeof *g.ranks, by_int);
        int k = 0;
        for (int i = 0; i < g.nranks; i++)
            if (k == 0 || g.ranks[i] != g.ranks[k - 1])
                g.ranks[k++] = g.ranks[i];
        g.nranks = k;
        v[n++] = g;
    }
    if (v)
        qsort(v, (size_t)n, sizeof *v, by_wait);
    *nplaces = n;
    return v;
}

static void print_text(const cube_profile *p, const place *v, int n, FILE *out)
{
    char path[2048], ranks[1024], secs[64];
    for (int i = 0; i < n; i++) {
        path_of(p, v[i].cnode, " > ", path, sizeof path);
        ranks_text(v[i].ranks, v[i].nranks, ranks, sizeof ranks);
        if (v[i].hi - v[i].lo >= 0.05)
            snprintf(secs, sizeof secs, "%.1f-%.1f s", v[i].lo, v[i].hi);
        else
            snprintf(secs, sizeof secs, "%.1f s", v[i].hi);
        fprintf(out, "%-5s %-10s %s   %s%s\n", v[i].nranks > 1 ? "ranks" : "rank", ranks, path, secs,
                v[i].threads > v[i].nranks ? " (several threads)" : "");
    }
}

static void print_json(const cube_profile *p, const place *v, int n, FILE *out)
{
    fputs("[", out);
    for (int i = 0; i < n; i++) {
        fputs(i ? ",\n {\"ranks\": [" : "\n {\"ranks\": [", out);
        for (int k = 0; k < v[i].nranks; k++)
            fprintf(out, "%s%d", k ? ", " : "", v[i].ranks[k]);
        fputs("], \"path\": [", out);
        int chain[256], depth = chain_of(p, v[i].cnode, chain, 256);
        for (int k = depth - 1; k >= 0; k--) {
            int r = p->cnodes[chain[k]].region;
            if (k != depth - 1)
                fputs(", ", out);
            view_print_json_string(out, r >= 0 && p->regions[r].name ? p->regions[r].name : "?");
        }
        fputs("], \"seconds\": ", out);
        view_print_json_number(out, v[i].hi, 0);
        fputs(", \"seconds_least\": ", out);
        view_print_json_number(out, v[i].lo, 0);
        int r = p->cnodes[v[i].cnode].region;
        fprintf(out, ", \"in_mpi\": %s, \"threads\": %d}",
                r >= 0 && view_region_is_mpi(p, r) ? "true" : "false", v[i].threads);
    }
    fputs(n ? "\n]\n" : "]\n", out);
}

int view_now(cube_profile *p, const view_opts *o, FILE *out, int json)
{
    int m = cube_find_metric(p, "now");
    if (m < 0) {
        snprintf(o->err, o->errlen,
                 "no places of a running job in this file (metric now): take a snapshot with hprof-snapshot");
        return VIEW_BAD_USAGE;
    }
    if (view_load(p, o, m) != 0)
        return VIEW_BAD_FILE;
    int n;
    place *v = places_of(p, m, &n);
    if (!v)
        return VIEW_FAILED;
    if (json)
        print_json(p, v, n, out);
    else
        print_text(p, v, n, out);
    for (int i = 0; i < n; i++)
        free(v[i].ranks);
    free(v);
    return ferror(out) ? VIEW_FAILED : 0;
}
