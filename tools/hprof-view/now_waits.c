#include "tools/hprof-view/now_waits.h"

#include <stdlib.h>
#include <string.h>

enum wait_kind {
    RUNS,
    P2P,
    COLL
};

typedef struct rank_wait {
    int kind;    /* RUNS also for a rank the snapshot does not hold */
    int peer[2]; /* P2P: world ranks, -1 for none */
    int group;   /* COLL: its collective (index into the names) */
    const char *fn;
} rank_wait;

/* The wait of one call: P2P with its plain peers, COLL on MPI_COMM_WORLD,
 * else RUNS (it computes, or whom it waits for is not plain). */
static int call_wait(const now_call *c, int *peer)
{
    peer[0] = peer[1] = -1;
    if (!c)
        return RUNS;
    const char *words[2] = { c->source, c->dest };
    int k = 0, any = 0;
    for (int i = 0; i < 2; i++) {
        if (!words[i][0])
            continue;
        any = 1;
        if (strcmp(words[i], "none") == 0)
            continue; /* MPI_PROC_NULL: that side is done at once */
        int r = now_peer_rank(words[i]);
        if (r < 0)
            return RUNS; /* any source, or a rank of an unknown communicator */
        if (k == 0 || peer[0] != r)
            peer[k++] = r;
    }
    if (any)
        return k ? P2P : RUNS;
    return strcmp(c->comm, "world") == 0 ? COLL : RUNS;
}

static int group_of(const char *fn, const char **names, int *ngroups)
{
    for (int g = 0; g < *ngroups; g++)
        if (strcmp(names[g], fn) == 0)
            return g;
    names[*ngroups] = fn;
    return (*ngroups)++;
}

/* Each rank's wait: its first thread's, RUNS where any thread runs. */
static void rank_waits(const now_loc *locs, int nlocs, rank_wait *rw, int nranks, const char **names,
                       int *ngroups)
{
    char *seen = calloc((size_t)nranks + 1, 1);
    for (int r = 0; r < nranks; r++)
        rw[r] = (rank_wait){ RUNS, { -1, -1 }, -1, NULL };
    for (int i = 0; seen && i < nlocs; i++) {
        int r = locs[i].rank, peer[2];
        if (r < 0 || r >= nranks)
            continue;
        int kind = call_wait(locs[i].call, peer);
        if (kind == RUNS) {
            rw[r].kind = RUNS;
            seen[r] = 2; /* some thread of it runs */
        } else if (!seen[r]) {
            rw[r] = (rank_wait){ kind, { peer[0], peer[1] }, -1, locs[i].call->fn };
            if (kind == COLL)
                rw[r].group = group_of(locs[i].call->fn, names, ngroups);
            seen[r] = 1;
        }
    }
    free(seen);
}

typedef struct cycle_state {
    rank_wait *rw;
    int nranks, ngroups, size;
    char *in;
    int *count;   /* P2P: its peers in the set */
    int *outside; /* per group: ranks of the set not in it */
    int *queue, nqueue;
    int *rev_start, *rev; /* the P2P waiters of each rank */
} cycle_state;

static void push(cycle_state *s, int r)
{
    s->queue[s->nqueue++] = r;
}

static void push_group(cycle_state *s, int g)
{
    for (int r = 0; r < s->nranks; r++)
        if (s->in[r] && s->rw[r].kind == COLL && s->rw[r].group == g)
            push(s, r);
}

static void take_out(cycle_state *s, int x)
{
    s->in[x] = 0;
    s->size--;
    for (int i = s->rev_start[x]; i < s->rev_start[x + 1]; i++) {
        int y = s->rev[i];
        if (s->in[y] && --s->count[y] == 0)
            push(s, y);
    }
    for (int g = 0; g < s->ngroups; g++)
        if (!(s->rw[x].kind == COLL && s->rw[x].group == g) && --s->outside[g] == 0)
            push_group(s, g);
}

/* The P2P waiters of each rank, as lists in rev[rev_start[r]..]. */
static int reverse_edges(cycle_state *s)
{
    s->rev_start = calloc((size_t)s->nranks + 2, sizeof *s->rev_start);
    s->rev = calloc((size_t)2 * s->nranks + 1, sizeof *s->rev);
    if (!s->rev_start || !s->rev)
        return -1;
    for (int r = 0; r < s->nranks; r++)
        for (int k = 0; s->rw[r].kind == P2P && k < 2; k++)
            if (s->rw[r].peer[k] >= 0 && s->rw[r].peer[k] < s->nranks)
                s->rev_start[s->rw[r].peer[k] + 2]++;
    for (int r = 0; r < s->nranks; r++)
        s->rev_start[r + 2] += s->rev_start[r + 1];
    for (int r = 0; r < s->nranks; r++)
        for (int k = 0; s->rw[r].kind == P2P && k < 2; k++)
            if (s->rw[r].peer[k] >= 0 && s->rw[r].peer[k] < s->nranks)
                s->rev[s->rev_start[s->rw[r].peer[k] + 1]++] = r;
    return 0;
}

/* The largest set of waiters each of which waits for one in the set. */
static int find_cycle(cycle_state *s)
{
    int n = s->nranks;
    s->in = calloc((size_t)n + 1, 1);
    s->count = calloc((size_t)n + 1, sizeof *s->count);
    s->outside = calloc((size_t)s->ngroups + 1, sizeof *s->outside);
    s->queue = calloc((size_t)n * (s->ngroups + 2) + 1, sizeof *s->queue);
    if (!s->in || !s->count || !s->outside || !s->queue || reverse_edges(s) != 0)
        return -1;
    for (int r = 0; r < n; r++)
        if (s->rw[r].kind != RUNS)
            s->in[r] = 1, s->size++;
    for (int r = 0; r < n; r++) {
        for (int k = 0; s->rw[r].kind == P2P && k < 2; k++)
            s->count[r] += s->rw[r].peer[k] >= 0 && s->rw[r].peer[k] < n && s->in[s->rw[r].peer[k]];
        if (s->rw[r].kind == P2P && s->count[r] == 0)
            push(s, r);
    }
    for (int g = 0; g < s->ngroups; g++) {
        s->outside[g] = s->size;
        for (int r = 0; r < n; r++)
            s->outside[g] -= s->in[r] && s->rw[r].kind == COLL && s->rw[r].group == g;
        if (s->outside[g] == 0)
            push_group(s, g);
    }
    for (int i = 0; i < s->nqueue; i++)
        if (s->in[s->queue[i]])
            take_out(s, s->queue[i]);
    return 0;
}

/* "in MPI_Recv waits for rank 2" of waiter r: its peers, or for a
 * collective the ranks of `of` outside its own. */
static char *says_of(const rank_wait *rw, int r, int nranks, const char *of)
{
    int *v = malloc(((size_t)nranks + 1) * sizeof *v), n = 0;
    if (!v)
        return NULL;
    if (rw[r].kind == P2P) {
        for (int k = 0; k < 2; k++)
            if (rw[r].peer[k] >= 0)
                v[n++] = rw[r].peer[k];
        if (n == 2 && v[0] > v[1])
            v[0] ^= v[1], v[1] ^= v[0], v[0] ^= v[1];
    } else {
        for (int q = 0; q < nranks; q++)
            if (of[q] && !(rw[q].kind == COLL && rw[q].group == rw[r].group))
                v[n++] = q;
    }
    char ranks[256], buf[400];
    now_ranks_text(v, n, ranks, sizeof ranks);
    snprintf(buf, sizeof buf, "in %s waits for rank%s %s", rw[r].fn, n > 1 ? "s" : "", ranks);
    free(v);
    return strdup(buf);
}

/* Without a cycle: the one rank that is not a waiter and that waiters wait
 * for (every rank outside a collective's, the peers of P2P calls), or -1. */
static int awaited_rank(const rank_wait *rw, int nranks, char *blocker)
{
    int any_coll = 0, found = -1, n = 0;
    for (int r = 0; r < nranks; r++)
        any_coll |= rw[r].kind == COLL;
    for (int r = 0; r < nranks; r++) {
        for (int k = 0; rw[r].kind == P2P && k < 2; k++) {
            int p = rw[r].peer[k];
            if (p >= 0 && p < nranks && rw[p].kind == RUNS)
                blocker[p] = 1;
        }
        if (any_coll && rw[r].kind == RUNS)
            blocker[r] = 1;
    }
    for (int r = 0; r < nranks; r++)
        if (blocker[r])
            found = r, n++;
    return n == 1 ? found : -1;
}

int now_waits_find(const now_loc *locs, int nlocs, int nranks, now_waits *w)
{
    memset(w, 0, sizeof *w);
    w->awaited = -1;
    w->nranks = nranks;
    rank_wait *rw = calloc((size_t)nranks + 1, sizeof *rw);
    const char **names = calloc((size_t)nlocs + 1, sizeof *names);
    cycle_state s = { 0 };
    int rc = -1;
    w->in_cycle = calloc((size_t)nranks + 1, 1);
    w->says = calloc((size_t)nranks + 1, sizeof *w->says);
    if (!rw || !names || !w->in_cycle || !w->says)
        goto out;
    int ngroups = 0;
    rank_waits(locs, nlocs, rw, nranks, names, &ngroups);
    s = (cycle_state){ .rw = rw, .nranks = nranks, .ngroups = ngroups };
    if (find_cycle(&s) != 0)
        goto out;
    for (int r = 0; r < nranks; r++) {
        w->nwaiters += rw[r].kind != RUNS;
        w->in_cycle[r] = s.in[r];
        w->ncycle += s.in[r];
    }
    char *of = w->in_cycle;
    if (w->ncycle == 0) {
        char *blocker = calloc((size_t)nranks + 1, 1);
        w->awaited = blocker ? awaited_rank(rw, nranks, blocker) : -1;
        of = blocker;
        if (w->awaited < 0)
            free(blocker), of = NULL;
    }
    for (int r = 0; of && r < nranks; r++)
        if (rw[r].kind != RUNS && (w->ncycle ? w->in_cycle[r] : 1))
            w->says[r] = says_of(rw, r, nranks, of);
    if (of != w->in_cycle)
        free(of);
    rc = 0;
out:
    free(rw), free(names);
    free(s.in), free(s.count), free(s.outside), free(s.queue), free(s.rev_start), free(s.rev);
    return rc;
}

void now_waits_free(now_waits *w)
{
    for (int r = 0; w->says && r < w->nranks; r++)
        free(w->says[r]);
    free(w->says), free(w->in_cycle);
    memset(w, 0, sizeof *w);
}

/* One line per distinct saying, with the ranks that say it. */
static void print_sayings(const now_waits *w, FILE *out)
{
    char *done = calloc((size_t)w->nranks + 1, 1);
    int *v = malloc(((size_t)w->nranks + 1) * sizeof *v);
    for (int r = 0; done && v && r < w->nranks; r++) {
        if (!w->says[r] || done[r])
            continue;
        int n = 0;
        for (int q = r; q < w->nranks; q++)
            if (w->says[q] && !done[q] && strcmp(w->says[q], w->says[r]) == 0)
                v[n++] = q, done[q] = 1;
        char ranks[256];
        now_ranks_text(v, n, ranks, sizeof ranks);
        fprintf(out, "  %-5s %-10s %s\n", n > 1 ? "ranks" : "rank", ranks, w->says[r]);
    }
    free(done), free(v);
}

void now_waits_print(const now_waits *w, FILE *out)
{
    if (w->ncycle > 0) {
        int *v = malloc(((size_t)w->nranks + 1) * sizeof *v), n = 0;
        for (int r = 0; v && r < w->nranks; r++)
            if (w->in_cycle[r])
                v[n++] = r;
        char ranks[256];
        now_ranks_text(v, n, ranks, sizeof ranks);
        free(v);
        fprintf(out,
                "wait-for cycle: ranks %s wait for each other; none goes on unless one leaves its call "
                "(a deadlock if it lasts):\n",
                ranks);
        print_sayings(w, out);
    } else if (w->awaited >= 0) {
        fprintf(out, "every waiting rank waits for rank %d, directly or through others:\n", w->awaited);
        print_sayings(w, out);
    }
}
