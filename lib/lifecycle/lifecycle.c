/*
 * lifecycle.c - which MPI calls open and close the measurement (lifecycle.h).
 */
#include "lib/lifecycle/lifecycle.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/log.h"
#include "lib/ending/run_marks.h"
#include "lib/lifecycle/runtime.h"
#include "lib/lifecycle/session.h"
#include "lib/lifecycle/unmeasured.h"

/* hprof_init_state (unmeasured.h) says how far the opening got;
 * lifecycle_stopped: the measurement was closed. */
static int lifecycle_stopped;
/* The two ways into MPI: the World model (between hprof's MPI_Init and
 * MPI_Finalize wrappers) and the program's sessions open through hprof's
 * wrappers. session_owned: the first session opened the measurement, over
 * a communicator from hprof's own session (lib/lifecycle/session.h). */
static int world_open, sessions_open, session_owned;

void hprof_lifecycle_nest_enter(void)
{
    __atomic_add_fetch(&hprof_init_nest, 1, __ATOMIC_SEQ_CST);
}
void hprof_lifecycle_nest_leave(void)
{
    __atomic_sub_fetch(&hprof_init_nest, 1, __ATOMIC_SEQ_CST);
}

/* 1 if this call opens the measurement (it must then call started()). An
 * init call on another thread meanwhile waits until the measurement is
 * open: otherwise its thread's calls right after it, made while the first
 * thread still derives hprof's communicator, would be lost. */
static int opens(void)
{
    int expect = 0;
    if (__atomic_compare_exchange_n(&hprof_init_state, &expect, HPROF_INIT_STARTING, 0, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST))
        return 1;
    struct timespec tenth_ms = { 0, 100000 }; /* the opening takes collectives: no spinning */
    while (__atomic_load_n(&hprof_init_state, __ATOMIC_SEQ_CST) != HPROF_INIT_STARTED)
        nanosleep(&tenth_ms, NULL);
    return 0;
}

static void started(void)
{
    __atomic_store_n(&hprof_init_state, HPROF_INIT_STARTED, __ATOMIC_SEQ_CST);
}

void hprof_lifecycle_init_done(int fn, uint64_t t0)
{
    if (__atomic_load_n(&hprof_init_nest, __ATOMIC_SEQ_CST) > 0)
        return;
    __atomic_store_n(&world_open, 1, __ATOMIC_SEQ_CST);
    if (opens()) {
        hprof_runtime_start(fn, t0, MPI_COMM_WORLD);
        started();
    } else {
        hprof_runtime_record_init(fn, t0); /* a session opened the measurement */
    }
}

/* The rank the launcher gave this process, for a process without
 * MPI_COMM_WORLD (sessions): so that only rank 0 speaks. */
static void log_rank_from_launcher(void)
{
    static const char *const vars[] = { "PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK" };
    for (unsigned i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v >= '0' && *v <= '9') {
            hprof_log_set_rank(atoi(v));
            return;
        }
    }
}

void hprof_lifecycle_session_init(int fn, uint64_t t0, int measured)
{
    if (__atomic_load_n(&hprof_init_nest, __ATOMIC_SEQ_CST) > 0)
        return; /* the C call inside a Fortran wrapper: counted by that one */
    __atomic_add_fetch(&sessions_open, 1, __ATOMIC_SEQ_CST);
    if (!opens()) {    /* MPI_Init or an earlier session opened the measurement */
        if (!measured) /* it began before the measurement was open */
            hprof_runtime_record_init(fn, t0);
        return;
    }
    const char *why = "";
    MPI_Comm comm = hprof_session_open(&why);
    if (comm == MPI_COMM_NULL) {
        char how[320];
        log_rank_from_launcher();
        snprintf(how, sizeof how,
                 "it uses MPI sessions (MPI_Session_init) without MPI_Init, and "
                 "hprof could not derive a communicator over all processes from a session (%s)",
                 why);
        run_marks_foreign_init(how);
        started();
        return;
    }
    __atomic_store_n(&session_owned, 1, __ATOMIC_SEQ_CST);
    hprof_runtime_start(fn, t0, comm);
    started();
}

/* Stops the measurement once (merges and writes the profile); a measurement
 * a session opened also gives hprof's session back. */
static void stop_once(void)
{
    int expect = 0;
    if (!__atomic_compare_exchange_n(&lifecycle_stopped, &expect, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        return;
    hprof_runtime_stop();
    if (__atomic_load_n(&session_owned, __ATOMIC_SEQ_CST))
        hprof_session_close();
}

int hprof_lifecycle_session_last(void)
{
    if (__atomic_load_n(&hprof_init_nest, __ATOMIC_SEQ_CST) > 0)
        return 0; /* inside a Fortran wrapper, which asked already */
    int left = __atomic_sub_fetch(&sessions_open, 1, __ATOMIC_SEQ_CST);
    if (left < 0)
        __atomic_store_n(&sessions_open, 0, __ATOMIC_SEQ_CST); /* not one of ours */
    if (left != 0)
        return 0;
    if (!__atomic_load_n(&session_owned, __ATOMIC_SEQ_CST) || __atomic_load_n(&world_open, __ATOMIC_SEQ_CST))
        return 0; /* MPI_Finalize ends the measurement */
    stop_once();
    return 1;
}

void hprof_lifecycle_finalize(void)
{
    __atomic_store_n(&world_open, 0, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&session_owned, __ATOMIC_SEQ_CST) &&
        __atomic_load_n(&sessions_open, __ATOMIC_SEQ_CST) > 0)
        return; /* a session opened the measurement, and the last one to end closes it */
    stop_once();
}
