/*
 * spawn.c - spawned jobs get hprof and a profile name of their own (see
 * spawn.h). Nothing here allocates: the new argument vector lives in the
 * wrapper's frame, and the VAR=value strings are the environment's own.
 */
#include "lib/lifecycle/spawn.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "report/profile/output_name.h"

static char own_tag[64]; /* this job's tag, when it was spawned */
static int nspawn;       /* MPI_Comm_spawn calls of this process */

/* "NAME=value" as the environment holds it, or NULL */
static char *env_entry(const char *name)
{
    char *v = getenv(name);
    size_t n = strlen(name);
    if (!v || v[-1] != '=' || strncmp(v - n - 1, name, n) != 0)
        return NULL;
    return v - n - 1;
}

static int nprepare; /* calls of hprof_spawn_prepare */

static int preloaded(void)
{
    const char *pre = getenv("LD_PRELOAD");
    return pre && strstr(pre, "libhprof");
}

int hprof_spawn_count(void)
{
    return __atomic_load_n(&nprepare, __ATOMIC_RELAXED);
}

void hprof_spawn_fortran_done(int count_before)
{
    static int said;
    if (hprof_spawn_count() != count_before || !preloaded() ||
        __atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
        return;
    hprof_say("the job MPI_COMM_SPAWN starts from Fortran is not profiled (this MPI library's Fortran "
              "binding does not pass through MPI_Comm_spawn); preload libhprof in the launcher to "
              "profile it (LD_PRELOAD=.../libhprof.so mpirun ...)");
}

void hprof_spawn_prepare(hprof_spawn *s, const char **command, char ***argv)
{
    __atomic_add_fetch(&nprepare, 1, __ATOMIC_RELAXED);
    const char *pre = getenv("LD_PRELOAD");
    if (!pre || !strstr(pre, "libhprof"))
        return; /* linked in, or not here at all: the children are as the parent */
    int n = 0;
    while (*argv && (*argv)[n])
        n++;
    if (n > HPROF_SPAWN_MAX_ARGS) {
        hprof_say("the job MPI_Comm_spawn starts is not profiled: more than %d arguments",
                  HPROF_SPAWN_MAX_ARGS);
        return;
    }
    int k = __atomic_add_fetch(&nspawn, 1, __ATOMIC_RELAXED);
    if (own_tag[0])
        snprintf(s->tag, sizeof s->tag, "HPROF_SPAWN=%s-%d", own_tag, k);
    else
        snprintf(s->tag, sizeof s->tag, "HPROF_SPAWN=spawn%d", k);
    int a = 0;
    s->argv[a++] = env_entry("LD_PRELOAD");
    char *marks = env_entry("HPROF_RUN_MARKS");
    if (marks)
        s->argv[a++] = marks;
    s->argv[a++] = s->tag;
    /* env takes any word with '=' before the command for an assignment (a
     * program in a folder named np=4 would be one): the shell's exec takes
     * the program as $0, a path or a name to look up, as the launcher does. */
    s->argv[a++] = (char *)"/bin/sh";
    s->argv[a++] = (char *)"-c";
    s->argv[a++] = (char *)"exec \"$0\" \"$@\"";
    s->argv[a++] = (char *)*command;
    for (int i = 0; i < n; i++)
        s->argv[a++] = (*argv)[i];
    s->argv[a] = NULL;
    if (!s->argv[0])
        return; /* LD_PRELOAD not found as NAME=value: leave the call alone */
    if (**command == '/' && access(*command, X_OK) != 0)
        return; /* the MPI library says it cannot start it, as without hprof */
    *command = access("/usr/bin/env", X_OK) == 0 ? "/usr/bin/env" : "env";
    *argv = s->argv;
}

void hprof_spawn_multiple_note(void)
{
    static int said;
    if (!preloaded() || __atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
        return;
    hprof_say("the jobs MPI_Comm_spawn_multiple starts are not profiled; preload libhprof "
              "in the launcher to profile them (LD_PRELOAD=.../libhprof.so mpirun ...)");
}

void hprof_spawn_child_start(void)
{
    MPI_Comm parent = MPI_COMM_NULL;
    if (PMPI_Comm_get_parent(&parent) != MPI_SUCCESS || parent == MPI_COMM_NULL)
        return;
    const char *tag = getenv("HPROF_SPAWN");
    snprintf(own_tag, sizeof own_tag, "%s", tag && *tag ? tag : "spawn");
    output_name_set_spawn(own_tag);
}
