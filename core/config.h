/*
 * config.h - hprof's settings, read once from HPROF_* environment variables
 * at MPI_Init. Every value is validated: a bad one gets a one-line message
 * naming the variable and what it accepts, and the default is used.
 *
 * Every variable hprof knows is one row of one table (config.c): the
 * loader, the typo finder and the README check (tests/arch/config_vars.sh)
 * all read it. Test knobs (HPROFTEST_*) are rows too, marked as such.
 */
#ifndef HPROF_CONFIG_H
#define HPROF_CONFIG_H

#include <stdint.h>

/* Higher HPROF_SAMPLING_HZ values are accepted and capped (config.c). */
#define HPROF_MAX_SAMPLING_HZ 10000

enum hprof_sampling_clock {
    HPROF_CLOCK_WALL,
    HPROF_CLOCK_CPU
};
/* HPROF_POLLS: polls that completed nothing also as metrics of their own */
enum hprof_polls {
    HPROF_POLLS_TOGETHER,
    HPROF_POLLS_SPLIT
};
/* HPROF_CALLSITES: the profile's call tree has one child per callee (as
 * Score-P's), or one per call site */
enum hprof_callsites {
    HPROF_CALLSITES_MERGE,
    HPROF_CALLSITES_SPLIT
};

/* HPROF_LOCATIONS: the file's locations, every rank's or a few that
 * summarise them (report/profile/locations_file.h); auto: reduced above
 * LOCATIONS_AUTO_RANKS ranks */
enum hprof_locations {
    HPROF_LOCATIONS_ALL,
    HPROF_LOCATIONS_REDUCED,
    HPROF_LOCATIONS_AUTO
};

typedef struct hprof_config_t {
    const char *output;   /* HPROF_OUTPUT, NULL: choose a new name */
    int sampling_hz;      /* HPROF_SAMPLING_HZ, 0 = off */
    int sampling_clock;   /* HPROF_SAMPLING_CLOCK */
    const char *nounwind; /* HPROF_NOUNWIND, NULL: the default set */
    int thunks;           /* HPROF_THUNKS */
    int prelearn;         /* HPROF_PRELEARN: the program's recipes learned at the start (unwind/prelearn.c) */
    int python;           /* HPROF_PYTHON: Python functions in call paths (unwind/python/py_runtime.h) */
    int system_lines;    /* HPROF_SYSTEM_LINES: source lines of system libraries (report/profile/symbols.c) */
    const char *metrics; /* HPROF_METRICS, NULL: none */
    int verbose;         /* HPROF_VERBOSE */
    int max_nodes;       /* HPROF_MAX_CALLPATHS: call-tree nodes per thread */
    int compress;        /* HPROF_COMPRESS: 1 ZCUBEX data, 0 plain CUBEX data */
    int poll_stride_us; /* HPROF_POLL_STRIDE_US: a timed poll per this much of a polling loop (lib/polls/poll_run.h), 0 = every poll */
    int polls;          /* HPROF_POLLS: enum hprof_polls */
    int callsites;      /* HPROF_CALLSITES: enum hprof_callsites */
    int time_buckets;   /* HPROF_TIME_BUCKETS: timeline buckets per thread, 0 = off */
    int time_paths;     /* HPROF_TIME_PATHS: heaviest call paths kept over time, 0 = off */
    int locations;      /* HPROF_LOCATIONS: enum hprof_locations */
    int simulate_ranks; /* HPROF_SIMULATE_RANKS: ranks the merge takes each rank for, 1 = off */
    const char *select; /* HPROF_SELECT: functions measured exactly, the selection language (lib/exact) */
    const char *filter; /* HPROF_FILTER: the same, as a Score-P filter file */
    const char *overhead; /* HPROF_OVERHEAD: HPROF_SELECT=auto's budget, percent (lib/exact/exact_auto.h) */
    const char *auto_warmup; /* HPROF_AUTO_WARMUP: HPROF_SELECT=auto's warm-up, seconds */
} hprof_config_t;

extern hprof_config_t hprof_config __attribute__((visibility("hidden")));

/* Reads and validates the environment, from the defaults on; prints
 * problems through hprof_say (so call after the rank is known). Before it
 * runs every field is 0 (NULL). */
void hprof_config_load(void);

enum hprof_var_kind {
    HPROF_VAR_INT,      /* an integer in [lo, hi] */
    HPROF_VAR_STRING,   /* any non-empty string; default NULL */
    HPROF_VAR_CHOICE,   /* one of choices[], stored as its index */
    HPROF_VAR_ELSEWHERE /* read by another part, named in help */
};
#define HPROF_VAR_TEST_KNOB 1 /* for hprof's tests, not for users */
#define HPROF_VAR_INTERNAL 2  /* set by hprof for the processes it starts */

typedef struct hprof_var {
    const char *name;
    enum hprof_var_kind kind;
    void *field;                /* int * or const char **; NULL: ELSEWHERE */
    long lo, hi, def;           /* INT: range and default; CHOICE: def */
    const char *const *choices; /* CHOICE: NULL-terminated */
    void (*then)(void);         /* run after the variable was read */
    const char *help;
    int flags;
} hprof_var;

/* The table, *n rows, in the order they are read. */
const hprof_var *hprof_config_vars(int *n);

#endif
