/*
 * exact_report.c - which functions were measured exactly, and from when,
 * as the profile says it (exact_report.h).
 */
#include "lib/exact/exact_report.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "lib/exact/exact.h"

/* text (used bytes) with a line for each selected thing that measured
 * nothing here (exact.h): "#unmeasured WHAT\tWHY", or, for a name that
 * took functions, "#visits N VAR WHAT" (N: -1 not known, VAR the
 * variable that asked); NULL as text. */
static char *add_unmeasured(char *text, size_t *used)
{
    int n = text ? hprof_exact_unmeasured(NULL, 0) : 0;
    exact_unmeasured *u = calloc((size_t)n + 1, sizeof *u);
    size_t cap = *used + 1;
    n = u ? hprof_exact_unmeasured(u, n) : 0;
    for (int i = 0; i < n; i++)
        cap += strlen(u[i].what) + (u[i].why ? strlen(u[i].why) : 0) + 48;
    char *t = n ? realloc(text, cap) : text;
    for (int i = 0; t && i < n; i++) {
        if (u[i].why)
            *used += (size_t)snprintf(t + *used, cap - *used, "#unmeasured %s\t%s\n", u[i].what, u[i].why);
        else
            *used += (size_t)snprintf(t + *used, cap - *used, "#visits %lld %s %s\n",
                                      u[i].visits == UINT64_MAX ? -1ll : (long long)u[i].visits, u[i].var,
                                      u[i].what);
    }
    if (!t)
        free(text);
    free(u);
    return t;
}

static int by_function(const void *a, const void *b)
{
    const exact_measured *x = a, *y = b;
    int c = strcmp(x->module, y->module);
    return c ? c : strcmp(x->name, y->name);
}

/* One entry per function: a library loaded again and again measured it
 * once per load, each load's entry its own. Since the first load's patch,
 * until the last one's end (0: to the end of the run), at the largest rate
 * HPROF_SELECT=auto dropped it for. The count left. */
static int merge_loads(exact_measured *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_function);
    int out = 0;
    for (int i = 0; i < n; i++) {
        exact_measured *o = out ? &v[out - 1] : NULL;
        if (!o || by_function(o, &v[i]) != 0) {
            v[out++] = v[i];
            continue;
        }
        o->since_ns = v[i].since_ns < o->since_ns ? v[i].since_ns : o->since_ns;
        o->until_ns = o->until_ns == 0 || v[i].until_ns == 0 ? 0
                      : v[i].until_ns > o->until_ns          ? v[i].until_ns
                                                             : o->until_ns;
        if (v[i].dropped_rate > o->dropped_rate) {
            o->dropped_rate = v[i].dropped_rate;
            o->dropped_cost = v[i].dropped_cost;
        }
    }
    return out;
}

/* This rank's list: one line per function, "since until rate cost
 * module\tname\n" (ns since the window's start; until 0: to the end;
 * rate, cost: HPROF_SELECT=auto dropped it, 0 0 if not), after a line
 * "#auto visit_ns budget" where HPROF_SELECT=auto chose. */
static char *local_list(size_t *len)
{
    int n = hprof_exact_measured(NULL, 0);
    exact_measured *v = calloc((size_t)n + 1, sizeof *v);
    size_t cap = 1;
    if (!v)
        return NULL;
    int listed = hprof_exact_measured(v, n); /* more if a library came meanwhile */
    n = merge_loads(v, listed < n ? listed : n);
    for (int i = 0; i < n; i++)
        cap += strlen(v[i].name) + strlen(v[i].module) + 96;
    double visit_ns, budget;
    int automatic = hprof_exact_auto_info(&visit_ns, &budget);
    char *text = malloc(cap + 64);
    size_t used = 0;
    if (text && automatic) /* HPROF_SELECT=auto: what a visit cost here, the budget */
        used += (size_t)snprintf(text, 64, "#auto %.3f %.6f\n", visit_ns, budget);
    for (int i = 0; text && i < n; i++)
        used += (size_t)snprintf(text + used, cap + 64 - used, "%llu %llu %.6g %.6g %s\t%s\n",
                                 (unsigned long long)v[i].since_ns, (unsigned long long)v[i].until_ns,
                                 v[i].dropped_rate, v[i].dropped_cost, v[i].module, v[i].name);
    if (text)
        text[used] = '\0';
    free(v);
    text = add_unmeasured(text, &used);
    *len = used;
    return text;
}

typedef struct agg {
    char *module, *name;
    int ranks;
    uint64_t since_min, since_max, until_max;
    int until_end;     /* some rank kept it patched to the end */
    int dropped;       /* ranks where HPROF_SELECT=auto dropped it */
    double rate, cost; /* the largest visit rate and cost it was dropped for */
} agg;

/* HPROF_SELECT=auto over the ranks: the cost of a visit, least and most. */
typedef struct auto_agg {
    int ranks;
    double visit_min, visit_max, budget;
} auto_agg;

/* What was selected and measured nothing, over the ranks: by what was
 * asked, why (the first rank's), or, where some rank measured functions
 * for it, their visits summed (-1: not known). */
typedef struct unmeasured_agg {
    char *what, *why;
    char var[32]; /* for a name measured: the variable that asked */
    int measured;
    long long visits;
} unmeasured_agg;

typedef struct unmeasured_list {
    unmeasured_agg *v;
    int n;
} unmeasured_list;

static unmeasured_agg *unmeasured_entry(unmeasured_list *l, const char *what)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->v[i].what, what) == 0)
            return &l->v[i];
    unmeasured_agg *w = realloc(l->v, (size_t)(l->n + 1) * sizeof *w);
    if (!w)
        return NULL;
    l->v = w;
    w[l->n] = (unmeasured_agg){ strdup(what), NULL, "", 0, 0 };
    return w[l->n].what ? &w[l->n++] : NULL;
}

/* A "#unmeasured" or "#visits" line into l; 0, or -1 when line is neither. */
static int add_unmeasured_line(unmeasured_list *l, char *line)
{
    long long visits;
    int at = 0;
    unmeasured_agg *e;
    if (strncmp(line, "#unmeasured ", 12) == 0) {
        char *tab = strchr(line, '\t');
        if (!tab)
            return 0;
        *tab = '\0';
        if ((e = unmeasured_entry(l, line + 12)) && !e->why)
            e->why = strdup(tab + 1);
        return 0;
    }
    char var[32];
    if (sscanf(line, "#visits %lld %31s %n", &visits, var, &at) < 2 || !at)
        return -1;
    if ((e = unmeasured_entry(l, line + at))) {
        snprintf(e->var, sizeof e->var, "%s", var);
        e->visits = e->visits < 0 || visits < 0 ? -1 : e->visits + visits;
        e->measured = 1;
    }
    return 0;
}

static agg *find_or_add(agg **v, int *n, const char *module, const char *name)
{
    for (int i = 0; i < *n; i++)
        if (strcmp((*v)[i].module, module) == 0 && strcmp((*v)[i].name, name) == 0)
            return &(*v)[i];
    agg *w = realloc(*v, (size_t)(*n + 1) * sizeof *w);
    if (!w)
        return NULL;
    *v = w;
    agg *a = &w[(*n)++];
    *a = (agg){ strdup(module), strdup(name), 0, UINT64_MAX, 0, 0, 0, 0, 0, 0 };
    return a;
}

/* One rank's lines into the aggregate. */
static void add_lines(agg **v, int *n, auto_agg *au, unmeasured_list *un, char *text)
{
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        unsigned long long since, until;
        double rate, cost, visit, budget;
        int at = 0;
        if (add_unmeasured_line(un, line) == 0)
            continue;
        if (sscanf(line, "#auto %lf %lf", &visit, &budget) == 2) {
            au->visit_min = au->ranks && au->visit_min < visit ? au->visit_min : visit;
            au->visit_max = au->ranks && au->visit_max > visit ? au->visit_max : visit;
            au->budget = budget;
            au->ranks++;
            continue;
        }
        char *tab = strchr(line, '\t');
        if (!tab || sscanf(line, "%llu %llu %lf %lf %n", &since, &until, &rate, &cost, &at) < 4)
            continue;
        *tab = '\0';
        agg *a = find_or_add(v, n, line + at, tab + 1);
        if (!a || !a->module || !a->name)
            continue;
        a->ranks++;
        a->since_min = since < a->since_min ? since : a->since_min;
        a->since_max = since > a->since_max ? since : a->since_max;
        if (rate > 0) {
            a->dropped++;
            a->rate = rate > a->rate ? rate : a->rate;
            a->cost = cost > a->cost ? cost : a->cost;
        }
        if (until == 0)
            a->until_end = 1;
        else if (until > a->until_max)
            a->until_max = until;
    }
}

/* "RANKS SINCE_MIN SINCE_MAX UNTIL MODULE NAME" (seconds; UNTIL "-": to
 * the end; MODULE the file's base name, spaces as '?'). */
static char *format(const agg *a)
{
    const char *base = strrchr(a->module, '/');
    base = base ? base + 1 : a->module;
    size_t len = strlen(base) + strlen(a->name) + 96;
    char *s = malloc(len), until[32];
    if (!s)
        return NULL;
    if (a->until_end)
        snprintf(until, sizeof until, "-");
    else
        snprintf(until, sizeof until, "%.6f", (double)a->until_max * 1e-9);
    int at = snprintf(s, len, "%d %.6f %.6f %s ", a->ranks, (double)a->since_min * 1e-9,
                      (double)a->since_max * 1e-9, until);
    for (const char *p = base; *p && (size_t)at < len - 1; p++)
        s[at++] = *p == ' ' ? '?' : *p;
    snprintf(s + at, len - (size_t)at, " %s", a->name);
    return s;
}

static int collect(agg **v, int *n, auto_agg *au, unmeasured_list *un, MPI_Comm comm)
{
    int rank, size;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    size_t len = 0;
    char *mine = local_list(&len);
    int mylen = mine ? (int)len : 0, *lens = NULL, *displs = NULL;
    char *all = NULL;
    if (rank == 0) {
        lens = calloc((size_t)size, sizeof *lens);
        displs = calloc((size_t)size, sizeof *displs);
    }
    PMPI_Gather(&mylen, 1, MPI_INT, lens, 1, MPI_INT, 0, comm);
    long total = 0;
    for (int r = 0; rank == 0 && lens && displs && r < size; r++) {
        displs[r] = (int)total;
        total += lens[r];
    }
    if (rank == 0 && lens && displs)
        all = malloc((size_t)total + 1);
    /* every rank takes part; rank 0 without memory receives nothing */
    if (rank == 0 && !all)
        for (int r = 0; lens && r < size; r++)
            lens[r] = 0;
    PMPI_Gatherv(mine ? mine : "", mylen, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, comm);
    free(mine);
    for (int r = 0; all && r < size; r++) {
        char *part = malloc((size_t)lens[r] + 1);
        if (!part)
            continue;
        memcpy(part, all + displs[r], (size_t)lens[r]);
        part[lens[r]] = '\0';
        add_lines(v, n, au, un, part);
        free(part);
    }
    free(all);
    free(lens);
    free(displs);
    return rank;
}

/* HPROF_SELECT=auto's attributes: hprof::auto "budget B% a visit
 * MIN..MAX ns (RANKS ranks)", and hprof::auto::dropped::K "RANKS RATE
 * COST MODULE NAME" per function dropped (its largest rate, visits a
 * second, and the share of the run it would have cost). */
static void report_auto(const auto_agg *au, const agg *v, int n, exact_report_fn add, void *ctx)
{
    char key[48], text[160];
    if (au->ranks == 0)
        return;
    if (au->visit_min > 0)
        snprintf(text, sizeof text, "budget %.3g%% a visit %.1f..%.1f ns (%d ranks)", au->budget * 100,
                 au->visit_min, au->visit_max, au->ranks);
    else
        snprintf(text, sizeof text, "budget %.3g%% nothing chosen (%d ranks)", au->budget * 100, au->ranks);
    add(ctx, "hprof::auto", text);
    for (int i = 0, k = 0; i < n; i++) {
        if (!v[i].dropped)
            continue;
        const char *base = strrchr(v[i].module, '/');
        size_t len = strlen(v[i].name) + strlen(v[i].module) + 96;
        char *s = malloc(len);
        if (!s)
            continue;
        int at = snprintf(s, len, "%d %.6g %.6g ", v[i].dropped, v[i].rate, v[i].cost);
        for (const char *p = base ? base + 1 : v[i].module; *p && (size_t)at < len - 1; p++)
            s[at++] = *p == ' ' ? '?' : *p;
        snprintf(s + at, len - (size_t)at, " %s", v[i].name);
        snprintf(key, sizeof key, "hprof::auto::dropped::%d", k++);
        add(ctx, key, s);
        free(s);
    }
}

static void free_aggs(agg *v, int n)
{
    for (int i = 0; i < n; i++) {
        free(v[i].module);
        free(v[i].name);
    }
    free(v);
}

/* hprof::unmeasured: "WHAT (WHY), ..." for what was selected and measured
 * nothing; a name whose functions no rank saw called also gets its line
 * (say: at the end of a run, not in a dying rank's partial profile). */
static void report_unmeasured(const unmeasured_list *l, int say, exact_report_fn add, void *ctx)
{
    size_t cap = 1, at = 0;
    for (int i = 0; i < l->n; i++)
        cap += strlen(l->v[i].what) + (l->v[i].why ? strlen(l->v[i].why) : 0) + 24;
    char *s = malloc(cap);
    for (int i = 0; s && i < l->n; i++) {
        const unmeasured_agg *e = &l->v[i];
        const char *why = e->measured ? (e->visits == 0 ? "never called" : NULL) : e->why;
        if (!why)
            continue;
        at += (size_t)snprintf(s + at, cap - at, "%s%s (%s)", at ? ", " : "", e->what, why);
        if (e->measured && say)
            hprof_say("%s: %s was measured but never called: 0 visits on every rank (calls the compiler "
                      "inlined are not seen)",
                      e->var, e->what);
    }
    if (s && at)
        add(ctx, "hprof::unmeasured", s);
    free(s);
}

static void free_unmeasured(unmeasured_list *l)
{
    for (int i = 0; i < l->n; i++) {
        free(l->v[i].what);
        free(l->v[i].why);
    }
    free(l->v);
}

int hprof_exact_report(MPI_Comm comm, exact_report_fn add, void *ctx)
{
    agg *v = NULL;
    auto_agg au = { 0 };
    unmeasured_list un = { 0 };
    int n = 0;
    int rank = comm == MPI_COMM_NULL ? 0 : collect(&v, &n, &au, &un, comm);
    if (comm == MPI_COMM_NULL) {
        size_t len;
        char *mine = local_list(&len);
        if (mine)
            add_lines(&v, &n, &au, &un, mine);
        free(mine);
    }
    char key[48];
    for (int i = 0; rank == 0 && i < n; i++) {
        char *text = format(&v[i]);
        snprintf(key, sizeof key, "hprof::exact::%d", i);
        if (text)
            add(ctx, key, text);
        free(text);
    }
    if (rank == 0) {
        report_auto(&au, v, n, add, ctx);
        report_unmeasured(&un, comm != MPI_COMM_NULL, add, ctx);
    }
    free_aggs(v, n);
    free_unmeasured(&un);
    return n;
}
