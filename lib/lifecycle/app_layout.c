/*
 * app_layout.c - which processes measure, from what this one was told
 * (app_layout.h). Parts are numbered from 1 in what the user reads, as
 * hprof-run numbers them.
 */
#include "lib/lifecycle/app_layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "+2,-?,+4": flags and counts (-1 for '?'); the number of parts, or -1. */
static int parse_run_apps(const char *s, unsigned char *measured, int *count)
{
    int n = 0;
    while (*s) {
        if (n == APP_LAYOUT_MAX || (*s != '+' && *s != '-'))
            return -1;
        measured[n] = *s++ == '+';
        if (*s == '?') {
            count[n] = -1;
            s++;
        } else {
            char *end;
            long v = strtol(s, &end, 10);
            if (end == s || *s < '0' || *s > '9' || v > 1 << 30)
                return -1;
            count[n] = (int)v;
            s = end;
        }
        n++;
        if (*s == ',')
            s++;
        else if (*s)
            return -1;
    }
    return n;
}

/* "2 4": the launcher's processes a part; the number of parts, or -1. */
static int parse_counts(const char *s, int *count)
{
    int n = 0;
    for (;;) {
        while (*s == ' ')
            s++;
        if (!*s)
            return n;
        char *end;
        long v = strtol(s, &end, 10);
        if (n == APP_LAYOUT_MAX || end == s || *s < '0' || *s > '9' || v > 1 << 30)
            return -1;
        count[n++] = (int)v;
        s = end;
    }
}

static void unknown(app_layout *l, const char *why)
{
    l->verdict = APPS_UNKNOWN;
    snprintf(l->note, sizeof l->note, "%s", why);
}

/* Appends "ranks A-B (part K)" for each part not measured. */
static void name_left_out(app_layout *l)
{
    size_t off = 0;
    l->note[0] = '\0';
    for (int a = 0; a < l->napps; a++) {
        if (l->measured[a] || l->count[a] == 0)
            continue;
        char one[64];
        if (l->count[a] == 1)
            snprintf(one, sizeof one, "rank %d (part %d)", l->first[a], a + 1);
        else
            snprintf(one, sizeof one, "ranks %d-%d (part %d)", l->first[a], l->first[a] + l->count[a] - 1,
                     a + 1);
        if (off + strlen(one) + 8 >= sizeof l->note) {
            snprintf(l->note + off, sizeof l->note - off, ", ...");
            return;
        }
        off += (size_t)snprintf(l->note + off, sizeof l->note - off, "%s%s", off ? ", " : "", one);
    }
}

/* Places the parts' ranks one after the other and checks that this process
 * is where it should be: in a measured part, its own when it knows it. */
static void place(const app_facts *f, app_layout *l)
{
    char why[200];
    int sum = 0, mine = -1;
    for (int a = 0; a < l->napps; a++) {
        l->first[a] = sum;
        sum += l->count[a];
        if (f->rank >= l->first[a] && f->rank < sum)
            mine = a;
        if (l->measured[a])
            l->nmeasured += l->count[a];
    }
    if (sum != f->size) {
        snprintf(why, sizeof why, "the parts of the launch hold %d processes, MPI_COMM_WORLD %d", sum,
                 f->size);
        unknown(l, why);
    } else if (mine < 0 || !l->measured[mine] || (f->appnum >= 0 && f->appnum != mine)) {
        snprintf(why, sizeof why,
                 "this process (rank %d, MPI_APPNUM %d) is not where the launch's parts place it", f->rank,
                 f->appnum);
        unknown(l, why);
    } else {
        l->verdict = APPS_SOME;
        name_left_out(l);
    }
}

/* hprof-run said which parts it preloaded. */
static void from_hprof_run(const app_facts *f, app_layout *l)
{
    int n = parse_run_apps(f->run_apps, l->measured, l->count);
    if (n <= 0)
        return; /* not hprof-run's: as without it */
    int all = 1;
    for (int a = 0; a < n; a++)
        all &= l->measured[a];
    if (all)
        return;
    l->napps = n;
    int launcher[APP_LAYOUT_MAX];
    if (f->launcher_np && parse_counts(f->launcher_np, launcher) == n)
        memcpy(l->count, launcher, (size_t)n * sizeof *launcher);
    for (int a = 0; a < n; a++) {
        if (l->count[a] < 0) {
            char why[200];
            snprintf(why, sizeof why,
                     "part %d of the launch is not measured and the command line does not say "
                     "how many processes it has (-n N), so hprof cannot tell its ranks from the others",
                     a + 1);
            unknown(l, why);
            return;
        }
    }
    place(f, l);
}

/* A preload by hand: where the launcher tells the parts (Open MPI), this
 * part measures alone, since hprof cannot see whether the others do. */
static void by_hand(const app_facts *f, app_layout *l)
{
    int n = f->launcher_np ? parse_counts(f->launcher_np, l->count) : -1;
    if (n < 2 || f->appnum < 0 || f->appnum >= n)
        return; /* one part, or nothing known: every process */
    l->napps = n;
    l->measured[f->appnum] = 1;
    l->by_hand = 1;
    place(f, l);
}

void app_layout_decide(const app_facts *f, app_layout *l)
{
    memset(l, 0, sizeof *l);
    l->verdict = APPS_ALL;
    if (f->spawned)
        return;
    if (f->run_apps && strcmp(f->run_apps, "*") != 0)
        from_hprof_run(f, l);
    else if (!f->run_apps)
        by_hand(f, l);
}

const char *app_layout_reason(const app_layout *l)
{
    return l->by_hand
               ? "the preload was given by hand, part by part, and hprof cannot see whether other parts "
                 "measure (hprof-run profiles every part in one profile)"
               : "hprof-run could not preload them";
}

int app_layout_ranges(const app_layout *l, int ranges[][3])
{
    int n = 0;
    for (int a = 0; a < l->napps; a++) {
        if (!l->measured[a] || l->count[a] == 0)
            continue;
        ranges[n][0] = l->first[a];
        ranges[n][1] = l->first[a] + l->count[a] - 1;
        ranges[n][2] = 1;
        n++;
    }
    return n;
}
