/*
 * view_now.c - where every thread of a snapshot was (metric now, written
 * by hprof-snapshot: lib/ending/live_snapshot.h), as one tree of current places
 * with rank lists, as STAT shows a hung job:
 *
 *   ranks 0-2     main > wait_all > MPI_Barrier        61.2 s
 *   rank 3        main > wait_for_peer > MPI_Recv (source 2, tag 7)   61.2 s
 *
 * A place is a call path, and in an MPI call its peers (now_where.h); its
 * seconds are the time in the MPI call under way, or since the last sample
 * where the thread computed. Groups come longest wait first, then a
 * wait-for cycle or the rank every waiter waits for (now_waits.h). --json
 * gives the same as a list of groups.
 */
#include "tools/hprof-view/view.h"

#include "tools/hprof-view/now_waits.h"
#include "tools/hprof-view/now_where.h"

#include <stdlib.h>
#include <string.h>

typedef struct place {
    int cnode;
    const now_call *call; /* the MPI call's peers, the same for the group; NULL: none on record */
    int *ranks;           /* the locations' ranks, sorted, threads of one rank once */
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

/* A location at one place: whose, for how long, in which call. */
typedef struct at_place {
    int loc;
    double seconds;
    const now_call *call;
    char text[160];
} at_place;

static int by_text(const void *a, const void *b)
{
    return strcmp(((const at_place *)a)->text, ((const at_place *)b)->text);
}

/* The places of cnode c, one per call description, appended to v. */
static int group_at(const cube_profile *p, int c, at_place *at, int nat, place *v, int n)
{
    qsort(at, (size_t)nat, sizeof *at, by_text);
    for (int i = 0; i < nat;) {
        place g = { c, at[i].call, malloc((size_t)nat * sizeof(int)), 0, at[i].seconds, at[i].seconds, 0 };
        if (!g.ranks)
            return -1;
        int j = i;
        for (; j < nat && strcmp(at[j].text, at[i].text) == 0; j++) {
            g.ranks[g.nranks++] = p->procs[p->locs[at[j].loc].process].rank;
            g.lo = at[j].seconds < g.lo ? at[j].seconds : g.lo;
            g.hi = at[j].seconds > g.hi ? at[j].seconds : g.hi;
            g.threads++;
        }
        qsort(g.ranks, (size_t)g.nranks, sizeof *g.ranks, by_int);
        int k = 0;
        for (int q = 0; q < g.nranks; q++)
            if (k == 0 || g.ranks[q] != g.ranks[k - 1])
                g.ranks[k++] = g.ranks[q];
        g.nranks = k;
        v[n++] = g;
        i = j;
    }
    return n;
}

/* The places of metric m: a cnode with a value at some location, split by
 * the MPI call's peers (calls). Each location's place into locs. */
static place *places_of(const cube_profile *p, int m, const now_calls *calls, now_loc *locs, int *nplaces)
{
    place *v = calloc((size_t)p->ncnodes + (size_t)p->nlocs + 1, sizeof *v);
    at_place *at = calloc((size_t)p->nlocs + 1, sizeof *at);
    int n = 0;
    for (int c = 0; v && at && c < p->ncnodes; c++) {
        int nat = 0, r = p->cnodes[c].region, in_mpi = r >= 0 && view_region_is_mpi(p, r);
        for (int l = 0; l < p->nlocs; l++) {
            double s = cube_value(p, m, c, l, 0);
            if (s <= 0)
                continue;
            const cube_location *L = &p->locs[l];
            const now_call *call =
                in_mpi ? now_calls_find(calls, p->procs[L->process].rank, L->thread) : NULL;
            at[nat] = (at_place){ l, s, call, "" };
            now_call_text(call, at[nat].text, sizeof at[nat].text);
            locs[l] = (now_loc){ p->procs[L->process].rank, call, s };
            nat++;
        }
        if (nat && (n = group_at(p, c, at, nat, v, n)) < 0)
            break;
    }
    free(at);
    if (n < 0) {
        free(v);
        return NULL;
    }
    if (v)
        qsort(v, (size_t)n, sizeof *v, by_wait);
    *nplaces = n;
    return v;
}

static void print_text(const cube_profile *p, const place *v, int n, FILE *out)
{
    char path[2048], ranks[1024], secs[64], peers[160];
    for (int i = 0; i < n; i++) {
        path_of(p, v[i].cnode, " > ", path, sizeof path);
        now_call_text(v[i].call, peers, sizeof peers);
        if (peers[0])
            snprintf(path + strlen(path), sizeof path - strlen(path), " (%s)", peers);
        now_ranks_text(v[i].ranks, v[i].nranks, ranks, sizeof ranks);
        if (v[i].hi - v[i].lo >= 0.05)
            snprintf(secs, sizeof secs, "%.1f-%.1f s", v[i].lo, v[i].hi);
        else
            snprintf(secs, sizeof secs, "%.1f s", v[i].hi);
        fprintf(out, "%-5s %-10s %s   %s%s\n", v[i].nranks > 1 ? "ranks" : "rank", ranks, path, secs,
                v[i].threads > v[i].nranks ? " (several threads)" : "");
    }
}

/* , "in_cycle": true, "waits_for": "in MPI_Recv waits for rank 2" where
 * every rank of the group is in the wait-for cycle, or the group holds
 * the rank every waiter waits for ("awaited": true). */
static void print_json_waits(const place *g, const now_waits *w, FILE *out)
{
    int all = w->ncycle > 0, awaited = 0;
    for (int k = 0; k < g->nranks; k++) {
        int r = g->ranks[k];
        all = all && r < w->nranks && w->in_cycle[r];
        awaited |= r == w->awaited;
    }
    if (all)
        fputs(", \"in_cycle\": true", out);
    if (awaited)
        fputs(", \"awaited\": true", out);
    const char *says = g->nranks && g->ranks[0] < w->nranks ? w->says[g->ranks[0]] : NULL;
    if (says) {
        fputs(", \"waits_for\": ", out);
        view_print_json_string(out, says);
    }
}

static void print_json(const cube_profile *p, const place *v, int n, const now_waits *w, FILE *out)
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
        fprintf(out, ", \"in_mpi\": %s, \"threads\": %d",
                r >= 0 && view_region_is_mpi(p, r) ? "true" : "false", v[i].threads);
        now_call_json(v[i].call, out);
        print_json_waits(v + i, w, out);
        fputs("}", out);
    }
    fputs(n ? "\n]\n" : "]\n", out);
}

/* The job's size: its hprof::ranks, else one past the highest rank. */
static int job_ranks(const cube_profile *p)
{
    const char *v = cube_attr_get(p, "hprof::ranks");
    int n = v ? atoi(v) : 0;
    for (int i = 0; i < p->nprocs; i++)
        n = p->procs[i].rank >= n ? p->procs[i].rank + 1 : n;
    return n;
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
    int n = 0, rc = VIEW_FAILED;
    now_calls calls;
    now_waits w = { 0 };
    now_loc *locs = calloc((size_t)p->nlocs + 1, sizeof *locs);
    place *v = NULL;
    if (now_calls_read(p, &calls) != 0 || !locs)
        goto out;
    for (int l = 0; l < p->nlocs; l++)
        locs[l] = (now_loc){ -1, NULL, 0 };
    if (!(v = places_of(p, m, &calls, locs, &n)) || now_waits_find(locs, p->nlocs, job_ranks(p), &w) != 0)
        goto out;
    if (json) {
        print_json(p, v, n, &w, out);
    } else {
        print_text(p, v, n, out);
        now_waits_print(&w, out);
    }
    rc = ferror(out) ? VIEW_FAILED : 0;
out:
    for (int i = 0; v && i < n; i++)
        free(v[i].ranks);
    free(v), free(locs);
    now_waits_free(&w);
    now_calls_free(&calls);
    return rc;
}
