/*
 * app_layout.h - which processes of MPI_COMM_WORLD measure, decided by each
 * measuring process alone at MPI_Init. A process without hprof never joins
 * anything hprof does, so hprof's first collective may include only
 * processes that measure; and it cannot ask the others. What it knows:
 *
 *   - HPROF_RUN_APPS, set by hprof-run for the parts (app contexts) of the
 *     launch it preloaded: one entry a part, in order, comma-separated, '+'
 *     (preloaded) or '-' (not: no program found, statically linked) then the
 *     part's process count from the command line or '?'; '*' for a command
 *     preloaded whole (everything the launcher starts inherits it);
 *   - the launcher's count of processes a part (Open MPI:
 *     OMPI_APP_CTX_NUM_PROCS, "2 4"); MPICH's hydra tells none;
 *   - its own rank and MPI_APPNUM (its part).
 *
 * Both launchers number the processes part by part (the first part's are
 * ranks 0..n0-1, ...), which is what places a part's ranks. The decision
 * uses only what every process of a part is told alike, so the processes
 * that measure agree on it without a message.
 *
 * No MPI here (tests/unit/app_layout.sh checks it alone).
 */
#ifndef HPROF_APP_LAYOUT_H
#define HPROF_APP_LAYOUT_H

#define APP_LAYOUT_MAX 256 /* parts of one launch */

typedef struct app_facts {
    int rank, size;          /* this process in MPI_COMM_WORLD */
    int appnum;              /* its MPI_APPNUM, -1 when unknown */
    int spawned;             /* started by MPI_Comm_spawn: one command, preloaded by hprof */
    const char *run_apps;    /* HPROF_RUN_APPS, or NULL */
    const char *launcher_np; /* OMPI_APP_CTX_NUM_PROCS, or NULL */
} app_facts;

typedef enum app_verdict {
    APPS_ALL,     /* every process measures: MPI_COMM_WORLD */
    APPS_SOME,    /* the measured parts' ranks only */
    APPS_UNKNOWN, /* cannot tell which: measurement off (note says why) */
} app_verdict;

typedef struct app_layout {
    app_verdict verdict;
    int napps;
    int first[APP_LAYOUT_MAX], count[APP_LAYOUT_MAX]; /* ranks of each part */
    unsigned char measured[APP_LAYOUT_MAX];
    int nmeasured;  /* processes that measure (APPS_SOME) */
    int by_hand;    /* APPS_SOME without hprof-run: this part alone */
    char note[400]; /* APPS_SOME: the processes left out; APPS_UNKNOWN: why */
} app_layout;

void app_layout_decide(const app_facts *f, app_layout *l);

/* APPS_SOME: why the processes in note are left out (the rest of the line
 * "the profile leaves out <note>: <reason>"). */
const char *app_layout_reason(const app_layout *l);

/* APPS_SOME: the measured parts' ranks as MPI_Group_range_incl takes them
 * (first, last, stride 1); returns how many ranges. */
int app_layout_ranges(const app_layout *l, int ranges[][3]);

#endif
