/*
 * spawn.h - jobs started by MPI_Comm_spawn are profiled too, each into a
 * profile of its own.
 *
 * A spawned job's processes are started by the MPI library's launcher, with
 * the launcher's environment, not the parent's: LD_PRELOAD (hprof-run) does
 * not reach them. So the MPI_Comm_spawn wrapper starts the command through
 * env(1) with the parent's LD_PRELOAD, HPROF_RUN_MARKS and a tag
 * (HPROF_SPAWN=spawn<N>, the parent's N-th spawn; spawn<N>-<M> one level
 * down) when libhprof is preloaded. A job whose processes have a parent
 * names its profile after that tag (report/merge/output_name.h).
 */
#ifndef HPROF_SPAWN_H
#define HPROF_SPAWN_H

#define HPROF_SPAWN_MAX_ARGS 250

typedef struct hprof_spawn {
    char *argv[HPROF_SPAWN_MAX_ARGS + 8];
    char tag[96];       /* "HPROF_SPAWN=<tag>" */
} hprof_spawn;

/* MPI_Comm_spawn's command and argv, replaced (pointing into *s, which must
 * live until the PMPI call returns) by "env VAR=... command argv..." when
 * libhprof is preloaded; left alone otherwise, or with one line saying why
 * the children will not be profiled. */
void hprof_spawn_prepare(hprof_spawn *s, const char **command, char ***argv);

/* Calls of hprof_spawn_prepare so far. A Fortran MPI_COMM_SPAWN wrapper
 * reads it before forwarding and calls hprof_spawn_fortran_done after: when
 * the Fortran library did not pass through our C MPI_Comm_spawn (Open MPI's
 * calls PMPI_Comm_spawn), the children are not profiled: says so once. */
int hprof_spawn_count(void);
void hprof_spawn_fortran_done(int count_before);

/* MPI_Comm_spawn_multiple: its jobs are not rewritten; says so once. */
void hprof_spawn_multiple_note(void);

/* At the start of the measurement: a job started by MPI_Comm_spawn takes
 * its tag (HPROF_SPAWN, or "spawn") for its profile's name. */
void hprof_spawn_child_start(void);

#endif
