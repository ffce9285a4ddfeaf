/*
 * config.c - parsing and validation of the HPROF_* variables.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

extern char **environ;

hprof_config_t hprof_config = {
    .output = NULL,
    .sampling_hz = 100,
    .sampling_clock = HPROF_CLOCK_WALL,
    .nounwind = NULL,
    .thunks = 1,
    .metrics = NULL,
    .verbose = 0,
    .max_nodes = 1u << 18,
};

static const char *const known_vars[] = {
    "HPROF_OUTPUT", "HPROF_SAMPLING_HZ", "HPROF_SAMPLING_CLOCK", "HPROF_NOUNWIND",
    "HPROF_THUNKS", "HPROF_METRICS", "HPROF_VERBOSE", "HPROF_MAX_CALLPATHS",
    "HPROF_BUILD", /* read by hprof-run, not by the library */
};
#define NKNOWN (sizeof known_vars / sizeof known_vars[0])

/* Reads an integer in [lo, hi]; on a bad value says so and keeps *out. */
static void read_int(const char *var, long lo, long hi, int *out)
{
    const char *s = getenv(var);
    if (!s)
        return;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno || v < lo || v > hi) {
        hprof_say("%s='%s' is not an integer from %ld to %ld; using %d", var, s, lo, hi, *out);
        return;
    }
    *out = (int)v;
}

static void read_clock(void)
{
    const char *s = getenv("HPROF_SAMPLING_CLOCK");
    if (!s)
        return;
    if (strcmp(s, "wall") == 0)
        hprof_config.sampling_clock = HPROF_CLOCK_WALL;
    else if (strcmp(s, "cpu") == 0)
        hprof_config.sampling_clock = HPROF_CLOCK_CPU;
    else
        hprof_say("HPROF_SAMPLING_CLOCK='%s' is not 'wall' or 'cpu'; using wall", s);
}

static void read_string(const char *var, const char **out)
{
    const char *s = getenv(var);
    if (!s)
        return;
    if (*s == '\0') {
        hprof_say("%s is set but empty; using the default", var);
        return;
    }
    *out = s;
}

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), row[64];
    if (lb >= 64)
        return 64;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* An HPROF_ variable we do not know is most likely a typo: name the closest. */
static void check_unknown_vars(void)
{
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "HPROF_", 6) != 0)
            continue;
        char name[64];
        size_t n = strcspn(*e, "=");
        if (n >= sizeof name)
            n = sizeof name - 1;
        memcpy(name, *e, n);
        name[n] = '\0';
        size_t best = (size_t)-1, best_i = 0;
        for (size_t i = 0; i < NKNOWN; i++) {
            size_t d = edit_distance(name, known_vars[i]);
            if (d == 0) { best = 0; break; }
            if (d < best) { best = d; best_i = i; }
        }
        if (best != 0)
            hprof_say("unknown variable %s ignored (did you mean %s?)", name, known_vars[best_i]);
    }
}

void hprof_config_load(void)
{
    check_unknown_vars();
    read_int("HPROF_VERBOSE", 0, 2, &hprof_config.verbose);
    read_string("HPROF_OUTPUT", &hprof_config.output);
    read_int("HPROF_SAMPLING_HZ", 0, 100000, &hprof_config.sampling_hz);
    read_clock();
    read_string("HPROF_NOUNWIND", &hprof_config.nounwind);
    read_int("HPROF_THUNKS", 0, 1, &hprof_config.thunks);
    read_string("HPROF_METRICS", &hprof_config.metrics);
    int max_nodes = (int)hprof_config.max_nodes;
    read_int("HPROF_MAX_CALLPATHS", 1024, 1 << 30, &max_nodes);
    hprof_config.max_nodes = (uint32_t)max_nodes;
}
