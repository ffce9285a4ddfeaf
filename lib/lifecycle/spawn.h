/*
 * spawn.h - jobs started by MPI_Comm_spawn are profiled too, each into a
 * profile of its own.
 *
 * A spawned job's processes are started by the MPI library's launcher, with
 * the launcher's environment, not the parent's: LD_PRELOAD (hprof-run) does
 * not reach them. So the MPI_Comm_spawn wrapper starts the command as
 * "env LD_PRELOAD=... [HPROF_RUN_MARKS=...] HPROF_SPAWN=<tag> /bin/sh -c
 * 'exec "$0" "$@"' command argv..." when libhprof is preloaded (the tag is
 * spawn<N>, the parent's N-th spawn; spawn<N>-<M> one level down). The
 * shell's exec takes the command as a path (or a name looked up in PATH),
 * also when it holds '=' (np=4/app), which env alone would take for an
 * assignment. An absolute command that is not executable is left to the
 * MPI library, which refuses it as without hprof. A job whose processes
 * have a parent names its profile after its tag (report/profile/output_name.h).
 */
#ifndef HPROF_SPAWN_H
#define HPROF_SPAWN_H

#define HPROF_SPAWN_MAX_ARGS 250

typedef struct hprof_spawn {
    char *argv[HPROF_SPAWN_MAX_ARGS + 10];
    char tag[96]; /* "HPROF_SPAWN=<tag>" */
} hprof_spawn;

/* MPI_Comm_spawn's command and argv, replaced (pointing into *s, which must
 * live until the PMPI call returns) by "env VAR=... /bin/sh -c ... command
 * argv..." when
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
