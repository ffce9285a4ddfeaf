/*
 * learner_threads.c - the scheduling policy of hprof's learner thread, as
 * the program sees it (tests/mpi/unwind_learner.sh). After MPI_Init it
 * waits (at most 20 s) for a thread named hprof-learner and prints, for
 * each thread whose name begins with "hprof-", "NAME POLICY" (other,
 * batch, idle, or the number), then "threads N" (how many it saw).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *policy_name(int p)
{
    static char num[16];
    switch (p) {
    case SCHED_OTHER: return "other";
    case SCHED_BATCH: return "batch";
    case SCHED_IDLE: return "idle";
    default: snprintf(num, sizeof num, "%d", p); return num;
    }
}

static int thread_name(const char *tid, char *name, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(name, (int)len, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    name[strcspn(name, "\n")] = '\0';
    return 0;
}

/* Prints hprof's threads; the number of them named hprof-learner. */
static int list_hprof_threads(int print)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int learners = 0, seen = 0;
    char name[64];
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || thread_name(e->d_name, name, sizeof name) != 0 ||
            strncmp(name, "hprof-", 6) != 0)
            continue;
        seen++;
        learners += strcmp(name, "hprof-learner") == 0;
        if (print)
            printf("%s %s\n", name, policy_name(sched_getscheduler(atoi(e->d_name))));
    }
    if (d)
        closedir(d);
    if (print)
        printf("threads %d\n", seen);
    return learners;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct timespec tenth = { 0, 100000000 };
    for (int i = 0; i < 200 && list_hprof_threads(0) == 0; i++)
        nanosleep(&tenth, NULL);
    list_hprof_threads(1);
    MPI_Finalize();
    return 0;
}
