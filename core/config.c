/*
 * config.c - parsing and validation of the HPROF_* variables.
 */
#include "core/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

extern char **environ;

hprof_config_t hprof_config; /* hprof_config_load() sets the defaults */

static void cap_sampling_rate(void);
static void tell_log_verbose(void);
static void refuse_control_output(void);

static const char *const clocks[] = { "wall", "cpu", NULL };               /* enum hprof_sampling_clock */
static const char *const polls[] = { "together", "split", NULL };          /* enum hprof_polls */
static const char *const callsites[] = { "merge", "split", NULL };         /* enum hprof_callsites */
static const char *const locations[] = { "all", "reduced", "auto", NULL }; /* enum hprof_locations */

#define INT(var, f, l, h, d, text)                                        \
    {                                                                     \
        var, HPROF_VAR_INT, &hprof_config.f, l, h, d, NULL, NULL, text, 0 \
    }
#define STRING(var, f, text)                                                         \
    {                                                                                \
        var, HPROF_VAR_STRING, (void *)&hprof_config.f, 0, 0, 0, NULL, NULL, text, 0 \
    }
#define ELSEWHERE(var, flags, text)                                      \
    {                                                                    \
        var, HPROF_VAR_ELSEWHERE, NULL, 0, 0, 0, NULL, NULL, text, flags \
    }

/* Every variable hprof knows, in the order they are read (HPROF_VERBOSE
 * first: at 2 every rank prints the problems with the others). */
static const hprof_var vars[] = {
    { "HPROF_VERBOSE", HPROF_VAR_INT, &hprof_config.verbose, 0, 2, 0, NULL, tell_log_verbose,
      "0..2; 2 prints from every rank", 0 },
    { "HPROF_OUTPUT", HPROF_VAR_STRING, (void *)&hprof_config.output, 0, 0, 0, NULL, refuse_control_output,
      "path of the profile; default: a new name in the working directory", 0 },
    { "HPROF_SAMPLING_HZ", HPROF_VAR_INT, &hprof_config.sampling_hz, 0, 100000, 100, NULL, cap_sampling_rate,
      "sampling rate, 0 turns sampling off; above 10000 sampled at 10000", 0 },
    { "HPROF_SAMPLING_CLOCK", HPROF_VAR_CHOICE, &hprof_config.sampling_clock, 0, 0, HPROF_CLOCK_WALL, clocks,
      NULL, "wall or cpu", 0 },
    STRING("HPROF_NOUNWIND", nounwind,
           "MPI functions and groups timed, not unwound; default: cheap local queries"),
    INT("HPROF_THUNKS", thunks, 0, 1, 1, "1/0: use the thunk stack"),
    INT("HPROF_PRELEARN", prelearn, 0, 1, 1, "1/0: learn the executable's recipes when sampling starts"),
    INT("HPROF_PYTHON", python, 0, 1, 1, "1/0: name Python functions in call paths (CPython 3.11)"),
    INT("HPROF_SYSTEM_LINES", system_lines, 0, 1, 0,
        "1: source lines in the system's libraries too (from their debug files), 0: their function names "
        "only"),
    STRING("HPROF_METRICS", metrics, "comma list of PAPI events; default: none"),
    INT("HPROF_MAX_CALLPATHS", max_nodes, 1024, 1 << 30, 1 << 18, "call-tree nodes per thread"),
    INT("HPROF_COMPRESS", compress, 0, 1, 1, "1: zlib-compressed metric data, 0: plain"),
    INT("HPROF_POLL_STRIDE_US", poll_stride_us, 0, 100000, 20,
        "polls in a loop: one in N timed, about one every this many us of the loop; 0: each timed alone"),
    { "HPROF_POLLS", HPROF_VAR_CHOICE, &hprof_config.polls, 0, 0, HPROF_POLLS_TOGETHER, polls, NULL,
      "together, or split: polls that completed nothing also as metrics of their own", 0 },
    { "HPROF_CALLSITES", HPROF_VAR_CHOICE, &hprof_config.callsites, 0, 0, HPROF_CALLSITES_MERGE, callsites,
      NULL, "merge (one child per function, as Score-P) or split (a child per call site)", 0 },
    INT("HPROF_TIME_BUCKETS", time_buckets, 0, 65536, 256,
        "buckets of each thread's timeline, 0 turns it off"),
    INT("HPROF_TIME_PATHS", time_paths, 0, 1024, 16, "heaviest call paths kept over time, 0 turns it off"),
    { "HPROF_LOCATIONS", HPROF_VAR_CHOICE, &hprof_config.locations, 0, 0, HPROF_LOCATIONS_AUTO, locations,
      NULL,
      "all ranks' rows, or reduced: per call path sum, min, max and a few key ranks; auto: reduced past "
      "16384 ranks",
      0 },
    INT("HPROF_SIMULATE_RANKS", simulate_ranks, 1, 1 << 20, 1,
        "the merge takes each rank for K simulated ranks (scaling tests; the profile says so)"),
    STRING("HPROF_SELECT", select, "functions measured exactly: an expression of the selection language"),
    STRING("HPROF_FILTER", filter, "functions measured exactly: a Score-P filter file"),
    STRING("HPROF_OVERHEAD", overhead, "HPROF_SELECT=auto: the budget, percent of the run; default 1"),
    STRING("HPROF_AUTO_WARMUP", auto_warmup, "HPROF_SELECT=auto: seconds sampled before choosing; default 1"),
    ELSEWHERE("HPROF_BUILD", 0, "hprof-run: the folder holding <mpi>/libhprof.so"),
    ELSEWHERE("HPROF_SNAPSHOT_EVERY", 0,
              "hprof-run: seconds between snapshots of the running job; default none"),
    ELSEWHERE("HPROF_RUN_MARKS", HPROF_VAR_INTERNAL,
              "set by hprof-run: where ranks leave their marks (lib/ending/run_marks.h)"),
    ELSEWHERE("HPROF_RUN_APPS", HPROF_VAR_INTERNAL,
              "set by hprof-run: the parts of the launch it preloaded (lib/lifecycle/app_layout.h)"),
    ELSEWHERE("HPROF_SPAWN", HPROF_VAR_INTERNAL, "set for spawned jobs: their tag (lib/lifecycle/spawn.h)"),
    ELSEWHERE("HPROFTEST_LOG", HPROF_VAR_TEST_KNOB, "core/log.c: hprof's lines also appended to this file"),
    ELSEWHERE("HPROFTEST_CLOCK", HPROF_VAR_TEST_KNOB, "core/clock.c: 'gettime' never uses the TSC"),
    ELSEWHERE("HPROFTEST_CLOCK_PART", HPROF_VAR_TEST_KNOB,
              "lib/polls/poll_run.c: the clock's part in a timed poll starts at this many ns"),
    ELSEWHERE("HPROFTEST_UNWIND", HPROF_VAR_TEST_KNOB, "unwind: 'libunwind' walks with plain libunwind"),
    ELSEWHERE("HPROFTEST_UNWIND_CHECK", HPROF_VAR_TEST_KNOB, "unwind: 1 checks each walk against libunwind"),
    ELSEWHERE("HPROFTEST_EXACT", HPROF_VAR_TEST_KNOB,
              "lib/exact: comma list of functions measured exactly, by name; * for all"),
};
#define NVARS ((int)(sizeof vars / sizeof vars[0]))

const hprof_var *hprof_config_vars(int *n)
{
    *n = NVARS;
    return vars;
}

/* Reads an integer in [lo, hi]; on a bad value says so and keeps *out.
 * Blanks around the number are allowed on both sides (strtol takes them
 * before it; a shell script's "10 " is as meant as " 10"). */
static void read_int(const char *var, long lo, long hi, int *out)
{
    const char *s = getenv(var);
    if (!s)
        return;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    int digits = end != s;
    while (isspace((unsigned char)*end))
        end++;
    if (!digits || *end != '\0' || errno || v < lo || v > hi) {
        hprof_say("%s='%s' is not an integer from %ld to %ld; using %d", var, s, lo, hi, *out);
        return;
    }
    *out = (int)v;
}

/* Each sample is a signal: its delivery alone costs 20-35 us on the
 * machines measured (README), more where cores are shared. At 70-100 kHz
 * that is all of a thread's time and the program never ends; at 20 kHz
 * it ran 1.6 times as long, at 10 kHz 1.15 times. So rates above are
 * accepted but capped, with one line. */
static void cap_sampling_rate(void)
{
    if (hprof_config.sampling_hz <= HPROF_MAX_SAMPLING_HZ)
        return;
    hprof_say("HPROF_SAMPLING_HZ=%d is above %d, the most one signal per sample sustains; sampling at %d Hz",
              hprof_config.sampling_hz, HPROF_MAX_SAMPLING_HZ, HPROF_MAX_SAMPLING_HZ);
    hprof_config.sampling_hz = HPROF_MAX_SAMPLING_HZ;
}

/* A newline in the profile's name would split every line that names it
 * ("hprof: wrote ..."), and readers of those lines would take the rest for
 * a line of its own; no one means one: the name is refused, with the
 * control characters shown escaped, for the default. */
static void refuse_control_output(void)
{
    const char *o = hprof_config.output;
    size_t i = 0;
    while (o && o[i] && (unsigned char)o[i] >= 0x20 && o[i] != 0x7f)
        i++;
    if (!o || !o[i])
        return;
    char shown[512];
    size_t used = 0;
    for (const unsigned char *p = (const unsigned char *)o; *p && used + 5 < sizeof shown; p++) {
        if (*p == '\n')
            used += (size_t)snprintf(shown + used, sizeof shown - used, "\\n");
        else if (*p < 0x20 || *p == 0x7f)
            used += (size_t)snprintf(shown + used, sizeof shown - used, "\\x%02x", *p);
        else
            shown[used++] = (char)*p;
    }
    shown[used] = '\0';
    hprof_say("HPROF_OUTPUT='%s' holds a control character, which would split the lines naming the profile; "
              "using the default name (a new one in the working directory)",
              shown);
    hprof_config.output = NULL;
}

/* "'a', 'b' or 'c'" of a NULL-terminated list, into buf */
static const char *choice_list(const char *const *c, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; c[i] && used < size; i++) {
        const char *sep = i == 0 ? "" : c[i + 1] ? ", " : " or ";
        used += (size_t)snprintf(buf + used, size - used, "%s'%s'", sep, c[i]);
    }
    return buf;
}

/* One of v->choices, stored as its index; on a bad value says so. */
static void read_choice(const hprof_var *v)
{
    const char *s = getenv(v->name);
    if (!s)
        return;
    for (int i = 0; v->choices[i]; i++)
        if (strcmp(s, v->choices[i]) == 0) {
            *(int *)v->field = i;
            return;
        }
    char list[128];
    hprof_say("%s='%s' is not %s; using %s", v->name, s, choice_list(v->choices, list, sizeof list),
              v->choices[*(int *)v->field]);
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
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
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
        size_t best = (size_t)-1;
        int best_i = 0;
        for (int i = 0; i < NVARS; i++) {
            if (vars[i].flags & HPROF_VAR_TEST_KNOB)
                continue;
            size_t d = edit_distance(name, vars[i].name);
            if (d == 0) {
                best = 0;
                break;
            }
            if (d < best) {
                best = d;
                best_i = i;
            }
        }
        if (best != 0)
            hprof_say("unknown variable %s ignored (did you mean %s?)", name, vars[best_i].name);
    }
}

static void set_default(const hprof_var *v)
{
    if (v->kind == HPROF_VAR_INT || v->kind == HPROF_VAR_CHOICE)
        *(int *)v->field = (int)v->def;
    else if (v->kind == HPROF_VAR_STRING)
        *(const char **)v->field = NULL;
}

static void read_var(const hprof_var *v)
{
    if (v->kind == HPROF_VAR_INT)
        read_int(v->name, v->lo, v->hi, v->field);
    else if (v->kind == HPROF_VAR_STRING)
        read_string(v->name, v->field);
    else if (v->kind == HPROF_VAR_CHOICE)
        read_choice(v);
    if (v->then)
        v->then();
}

/* log.c decides who speaks and how by the verbosity (it cannot ask
 * config, which speaks through it). */
static void tell_log_verbose(void)
{
    hprof_log_set_verbose(hprof_config.verbose);
}

void hprof_config_load(void)
{
    for (int i = 0; i < NVARS; i++)
        set_default(&vars[i]);
    tell_log_verbose();
    check_unknown_vars();
    for (int i = 0; i < NVARS; i++)
        read_var(&vars[i]);
}
