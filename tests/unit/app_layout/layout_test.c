/* layout_test.c - lib/lifecycle/app_layout.c alone: which processes of an
 * MPMD launch measure, from what each one is told (HPROF_RUN_APPS,
 * Open MPI's OMPI_APP_CTX_NUM_PROCS, MPI_APPNUM). Prints ok/not ok lines. */
#include <stdio.h>
#include <string.h>

#include "lib/lifecycle/app_layout.h"

static int failed;

static void check(int cond, const char *name, const char *got)
{
    printf("%s - app layout: %s%s%s\n", cond ? "ok" : "not ok", name, cond ? "" : ": got ", cond ? "" : got);
    failed |= !cond;
}

/* "ALL", "UNKNOWN: note", or "SOME a-b,c-d: note" */
static const char *verdict(int rank, int size, int appnum, int spawned, const char *run_apps, const char *np)
{
    static char out[1024];
    app_facts f = { rank, size, appnum, spawned, run_apps, np };
    app_layout l;
    app_layout_decide(&f, &l);
    if (l.verdict == APPS_ALL)
        return "ALL";
    if (l.verdict == APPS_UNKNOWN) {
        snprintf(out, sizeof out, "UNKNOWN: %s", l.note);
        return out;
    }
    int ranges[APP_LAYOUT_MAX][3], n = app_layout_ranges(&l, ranges);
    size_t off = (size_t)snprintf(out, sizeof out, "SOME");
    for (int i = 0; i < n; i++)
        off += (size_t)snprintf(out + off, sizeof out - off, "%s%d-%d", i ? "," : " ", ranges[i][0],
                                ranges[i][1]);
    snprintf(out + off, sizeof out - off, " (%d): %s%s", l.nmeasured, l.note, l.by_hand ? " [by hand]" : "");
    return out;
}

static void expect(const char *name, const char *want, int rank, int size, int appnum, int spawned,
                   const char *run_apps, const char *np)
{
    const char *got = verdict(rank, size, appnum, spawned, run_apps, np);
    check(strncmp(got, want, strlen(want)) == 0, name, got);
}

int main(void)
{
    /* hprof-run preloaded every part, or the whole command: everyone */
    expect("every part preloaded: all", "ALL", 2, 3, 1, 0, "+1,+2", NULL);
    expect("a command preloaded whole: all", "ALL", 1, 3, 1, 0, "*", "1 2");
    expect("one part, no launcher facts: all", "ALL", 0, 4, 0, 0, "+4", NULL);
    /* hprof-run could not preload part 2 */
    expect("part 2 not preloaded, counts from hprof-run: part 1's ranks", "SOME 0-0 (1): ranks 1-2 (part 2)",
           0, 3, 0, 0, "+1,-2", NULL);
    expect("part 2 not preloaded, counts from Open MPI", "SOME 0-1 (2): rank 2 (part 2)", 1, 3, 0, 0, "+?,-?",
           "2 1");
    expect("the launcher's counts win over the command line's", "SOME 0-1 (2): rank 2 (part 2)", 0, 3, 0, 0,
           "+1,-2", "2 1");
    expect("parts 1 and 3 of 3 measured", "SOME 0-1,4-4 (3): ranks 2-3 (part 2)", 4, 5, 2, 0, "+2,-2,+1",
           NULL);
    expect("a part of 0 processes is named nowhere", "SOME 0-1 (2): rank 2 (part 3)", 1, 3, 0, 0, "+2,-0,-1",
           NULL);
    expect("no counts anywhere: measurement off, said why", "UNKNOWN: part 2 of the launch is not measured",
           0, 3, 0, 0, "+1,-?", NULL);
    expect("counts that do not add up: off",
           "UNKNOWN: the parts of the launch hold 3 processes, MPI_COMM_WORLD 4", 0, 4, 0, 0, "+1,-2", NULL);
    expect("a process placed in a part it is not in: off", "UNKNOWN: this process (rank 0, MPI_APPNUM 1)", 0,
           3, 1, 0, "+1,-2", NULL);
    expect("without MPI_APPNUM the rank places it", "SOME 1-2 (2): rank 0 (part 1)", 2, 3, -1, 0, "-1,+2",
           NULL);
    /* a preload by hand */
    expect("by hand, Open MPI: this part alone", "SOME 1-2 (2): rank 0 (part 1) [by hand]", 1, 3, 1, 0, NULL,
           "1 2");
    expect("by hand, one part: all", "ALL", 1, 3, 0, 0, NULL, "3");
    expect("by hand, MPICH (no launcher facts): all", "ALL", 1, 3, 1, 0, NULL, NULL);
    /* a spawned job is one command that hprof preloaded */
    expect("spawned: all", "ALL", 0, 2, 0, 1, "+1,-2", "1 2");
    /* what hprof-run did not write: as without it */
    expect("a malformed HPROF_RUN_APPS: all", "ALL", 0, 3, 0, 0, "1,x", NULL);
    return failed;
}
