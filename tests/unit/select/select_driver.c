/*
 * select_driver.c - core/select/ on its own, for tests/unit/select_*.sh:
 * reads a synthetic graph from a text file, parses a selection (the
 * language, or a Score-P filter file) and prints the functions it takes.
 *
 *   select_driver GRAPH -e 'SELECTION'   the selection language
 *   select_driver GRAPH -f FILTER_FILE   a Score-P filter file
 *   options before GRAPH: -i  print "inputs: ..." (select_inputs) first
 *                         -l  print "literal: NAME" (select_literal_names) first
 *                         -r N evaluate N times (the same result each time)
 *
 * Prints the chosen functions' names in the graph's order, one a line, or
 * "error: MESSAGE" (exit 2) when the selection or the graph is refused.
 *
 * Graph file, one item a line ('#' lines and blank lines skipped):
 *   fn NAME | MANGLED | FILE | MODULE | SIZE | MPI     ('-': none; MPI: 0/1)
 *   call CALLER | CALLEE                             (by name)
 *   call #I | #J                                     (by index, unchecked)
 * Fields after NAME may be left out (none, size 0, not on an MPI path).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/select/select.h"

typedef struct graph {
    select_fn *fn;
    int (*calls)[2];
    int nfn, ncalls, fn_cap, calls_cap;
} graph;

/* Room for one more in an array of *cap items (doubling). */
static void *grow(void *a, int n, int *cap, size_t size)
{
    if (n < *cap)
        return a;
    *cap = *cap ? 2 * *cap : 64;
    a = realloc(a, size * (size_t)*cap);
    if (!a) {
        fprintf(stderr, "graph: out of memory\n");
        exit(3);
    }
    return a;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n'))
        *--e = '\0';
    return s;
}

/* The next '|' field, trimmed and copied; NULL for '-' or none left. */
static char *next_field(char **rest)
{
    if (!*rest)
        return NULL;
    char *f = trim(strsep(rest, "|"));
    return strcmp(f, "-") == 0 || !*f ? NULL : strdup(f);
}

static void add_fn(graph *g, char *rest)
{
    g->fn = grow(g->fn, g->nfn, &g->fn_cap, sizeof *g->fn);
    select_fn *f = &g->fn[g->nfn++];
    memset(f, 0, sizeof *f);
    f->name = next_field(&rest);
    f->mangled = next_field(&rest);
    f->file = next_field(&rest);
    f->module = next_field(&rest);
    char *size = next_field(&rest), *mpi = next_field(&rest);
    f->size = size ? strtoull(size, NULL, 10) : 0;
    f->on_mpi_path = mpi ? atoi(mpi) : 0;
    free(size);
    free(mpi);
}

static int index_of(const graph *g, const char *name)
{
    if (name[0] == '#')
        return atoi(name + 1);
    for (int i = 0; i < g->nfn; i++)
        if (g->fn[i].name && strcmp(g->fn[i].name, name) == 0)
            return i;
    fprintf(stderr, "graph: no function '%s'\n", name);
    exit(3);
}

static void add_call(graph *g, char *rest)
{
    char *from = next_field(&rest), *to = next_field(&rest);
    if (!from || !to) {
        fprintf(stderr, "graph: a call needs CALLER | CALLEE\n");
        exit(3);
    }
    g->calls = grow(g->calls, g->ncalls, &g->calls_cap, sizeof *g->calls);
    g->calls[g->ncalls][0] = index_of(g, from);
    g->calls[g->ncalls++][1] = index_of(g, to);
    free(from);
    free(to);
}

static void read_graph(graph *g, const char *path)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        perror(path);
        exit(3);
    }
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, in) >= 0) {
        char *l = trim(line);
        if (strncmp(l, "fn ", 3) == 0)
            add_fn(g, l + 3);
        else if (strncmp(l, "call ", 5) == 0)
            add_call(g, l + 5);
        else if (*l && *l != '#') {
            fprintf(stderr, "graph: cannot read '%s'\n", l);
            exit(3);
        }
    }
    free(line);
    fclose(in);
}

static void free_graph(graph *g)
{
    for (int i = 0; i < g->nfn; i++) {
        free((char *)g->fn[i].name);
        free((char *)g->fn[i].mangled);
        free((char *)g->fn[i].file);
        free((char *)g->fn[i].module);
    }
    free(g->fn);
    free(g->calls);
}

static int usage(void)
{
    fprintf(stderr, "usage: select_driver [-i] [-l] [-r N] GRAPH (-e SELECTION | -f FILTER_FILE)\n");
    return 3;
}

/* Evaluates `rounds` times; 0 when every round agrees with the first. */
static int evaluate(const select_expr *e, const graph *g, int rounds, unsigned char *chosen)
{
    select_graph sg = { g->nfn, g->fn, g->ncalls, (const int(*)[2])g->calls };
    char err[256];
    unsigned char *again = malloc((size_t)g->nfn + 1);
    int rc = 0;
    for (int r = 0; r < rounds && rc == 0; r++) {
        unsigned char *out = r == 0 ? chosen : again;
        memset(out, 0xAA, (size_t)g->nfn); /* every byte must be written */
        if (select_eval(e, &sg, out, err, sizeof err) != 0) {
            printf("error: %s\n", err);
            rc = 2;
        } else if (r > 0 && memcmp(chosen, again, (size_t)g->nfn) != 0) {
            printf("error: round %d differs from the first\n", r + 1);
            rc = 2;
        }
    }
    free(again);
    return rc;
}

int main(int argc, char **argv)
{
    int show_inputs = 0, show_literals = 0, rounds = 1, a = 1;
    for (; a < argc && argv[a][0] == '-' && argv[a][1]; a++) {
        if (strcmp(argv[a], "-i") == 0)
            show_inputs = 1;
        else if (strcmp(argv[a], "-l") == 0)
            show_literals = 1;
        else if (strcmp(argv[a], "-r") == 0 && a + 1 < argc)
            rounds = atoi(argv[++a]);
        else
            return usage();
    }
    if (argc - a != 3 || (strcmp(argv[a + 1], "-e") != 0 && strcmp(argv[a + 1], "-f") != 0))
        return usage();
    graph g = { 0 };
    read_graph(&g, argv[a]);
    char err[256];
    select_expr *e = argv[a + 1][1] == 'e' ? select_parse(argv[a + 2], err, sizeof err)
                                           : select_from_scorep_filter(argv[a + 2], err, sizeof err);
    int rc = 2;
    if (!e)
        printf("error: %s\n", err);
    else {
        unsigned in = select_inputs(e);
        if (show_inputs)
            printf("inputs:%s%s\n", in & SELECT_USES_CALLS ? " calls" : "",
                   in & SELECT_USES_MPI_PATH ? " mpi_path" : "");
        int nlit = show_literals ? select_literal_names(e, NULL, 0) : 0;
        const char **lit = calloc((size_t)nlit + 1, sizeof *lit);
        for (int i = 0, n = lit ? select_literal_names(e, lit, nlit) : 0; i < n && i < nlit; i++)
            printf("literal: %s\n", lit[i]);
        free(lit);
        unsigned char *chosen = malloc((size_t)g.nfn + 1);
        rc = evaluate(e, &g, rounds, chosen);
        for (int i = 0; rc == 0 && i < g.nfn; i++)
            if (chosen[i] > 1)
                rc = 2, printf("error: chosen[%d] = %d\n", i, chosen[i]);
            else if (chosen[i])
                printf("%s\n", g.fn[i].name);
        free(chosen);
        select_free(e);
    }
    free_graph(&g);
    return rc;
}
