/*
 * measure.h - the interface between the generated MPI wrappers and the runtime.
 *
 * Every measured MPI wrapper does:
 *
 *     hprof_call call;
 *     hprof_call_begin(&call, HPROF_FN_MPI_Send, HPROF_FRAME);
 *     rc = PMPI_Send(...);
 *     if (call.measured) call.bytes[HPROF_BYTES_SENT] += ...;
 *     hprof_call_end(&call);
 *
 * hprof_call_begin() decides whether the call is measured (measured == 0
 * before MPI_Init, after MPI_Finalize, and for MPI calls made from inside
 * another wrapper, e.g. MPICH's Fortran layer calling the C MPI_ symbols),
 * takes the start time and marks the thread as "inside MPI" for the sampler.
 * hprof_call_end() takes the end time, finds the call path and adds visits,
 * time, min/max time and the bytes to that call path's node.
 *
 * Nothing here allocates or locks.
 */
#ifndef HPROF_MEASURE_H
#define HPROF_MEASURE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* start_ns is on hprof's clock; MPI_Init's wrapper reads its anchor. */
#include "core/clock.h"

enum hprof_bytes_kind {
    HPROF_BYTES_SENT,
    HPROF_BYTES_RECEIVED,
    HPROF_BYTES_PUT,
    HPROF_BYTES_GET,
    HPROF_IO_BYTES_READ,
    HPROF_IO_BYTES_WRITTEN,
    HPROF_NBYTES
};

/* Whom a call waits for, as the wrapper was given it, for a snapshot's
 * "where every rank is now" (lib/ending/live_snapshot.h): the communicator
 * (HPROF_COMM_KEY; 0 for a call that has none) and its peers in that
 * communicator's ranks, HPROF_NO_PEER where the call has no such argument.
 * Set by the wrapper after hprof_call_begin; read only by a snapshot. */
#define HPROF_NO_PEER INT32_MIN
#define HPROF_COMM_KEY(comm) ((uint64_t)(uintptr_t)(comm))
typedef struct hprof_call_where {
    uint64_t comm;
    int32_t source, dest, send_tag, recv_tag, root;
} hprof_call_where;

/* A call's place in its thread's polling run (lib/polls/poll_run.h): not a poll
 * of the run, or one whose time is estimated from the run's, or one timed
 * (one poll in N). Private to the runtime. */
enum hprof_poll_chain {
    HPROF_POLL_ALONE = 0,
    HPROF_POLL_CHAINED,
    HPROF_POLL_CHAINED_TIMED
};

typedef struct hprof_call {
    uint64_t start_ns;
    hprof_call_where where;
    void *frame;                 /* the wrapper's frame: the call path's walk starts at its caller */
    int fn;                      /* index into hprof_fn_table */
    int measured;                /* 0: the call passes through unmeasured */
    int nested;                  /* private to the runtime, as is thread */
    struct hprof_thread *thread; /* the calling thread's state when measured or nested */
    int chained;                 /* private: enum hprof_poll_chain (measure.c) */
    uint64_t poll_end_ns;        /* private: a timed poll's end when read just after its PMPI call, else 0 */
    int poll;                    /* set by a test or probe wrapper that completed nothing */
    uint64_t start_cpu_ns;       /* private: on the cpu sampling clock only */
    uint64_t start_cpu_cost_ns;  /* private: that read's cost (window_cpu_read) */
    uint64_t bytes[HPROF_NBYTES];
} hprof_call;

/* The wrapper's own frame (wrappers are compiled with frame pointers): its
 * return address and its caller's registers are where every call path
 * starts, so that the walk need not step through hprof's own frames. */
#define HPROF_FRAME __builtin_frame_address(0)

void hprof_call_begin(hprof_call *call, int fn, void *frame);

/* A few stores, no branch: in the wrapper of every call with a communicator. */
static inline void hprof_call_where_set(hprof_call *call, uint64_t comm, int source, int dest, int send_tag,
                                        int recv_tag, int root)
{
    call->where = (hprof_call_where){ comm, source, dest, send_tag, recv_tag, root };
}
void hprof_call_end(hprof_call *call);

/* The measurement ends while the calling thread is inside a measured MPI
 * call (a fatal signal in MPI_Recv, a hung job killed): that call is
 * recorded now, on its path, with its time up to now, as if it had
 * returned; its own end then books nothing more. Async-signal-safe, for
 * the calling thread only (its walk needs the thread's own state). */
void hprof_call_book_in_flight(void);

/* Where t's MPI call under way is (t->in_flight_node), found by the walk
 * its end would make: from the sampler's handler on t itself, for a sample
 * that lands inside the call (those are otherwise ignored), so that a
 * snapshot can say where each thread waits (lib/ending/live_snapshot.h). Once a
 * call; async-signal-safe. */
struct hprof_thread;
void hprof_call_locate_in_flight(struct hprof_thread *t);

/* In a process where thread t no longer runs (a forked writer or
 * snapshot, lib/ending/abandon.h): the node of t's MPI call under way, the one a
 * sample in it found, else <fn> under (not unwound); CCT_NONE where t is
 * in no measured call. */
uint32_t hprof_call_stopped_node(struct hprof_thread *t);
/* There too: t's call under way booked on that node, one visit with its
 * time up to now, as MPI time of t's window (before the window closes). */
void hprof_call_book_stopped(struct hprof_thread *t);

/* Polls (MPI_Test*, MPI_Iprobe, MPI_Improbe) from the frame of the
 * thread's polling run (lib/polls/poll_run.h) take a shorter path, since
 * in a loop whose own work misses the cache every instruction counts:
 *
 *     hprof_call call;
 *     uint64_t t0 = 0;                  (the one poll in N timed: its start's stamp)
 *     struct hprof_thread *run = hprof_poll_join(HPROF_FRAME, &t0);
 *     if (run) call.measured = 1; else hprof_call_begin(&call, fn, HPROF_FRAME);
 *     rc = PMPI_Test(...);
 *     if (run) {
 *         if (<completed nothing> && hprof_poll_again(run, fn, HPROF_FRAME, t0)) return rc;
 *         hprof_poll_resume(&call, run, fn, HPROF_FRAME, t0);
 *     }
 *     ... as any wrapper, from the bytes on
 *
 * hprof_poll_join and hprof_poll_again are inline, in poll_run.h;
 * hprof_poll_resume makes call what hprof_call_begin would have made.
 * MPI_Test, MPI_Testany of one request, MPI_Iprobe and MPI_Improbe have a
 * leaner path in front of that one (wrappers/README.md):
 *
 *     run = hprof_poll_latest(fn, HPROF_FRAME, &t0);   (on the run's latest entry?)
 *     if (!run) return general(HPROF_FRAME, ...);  (the wrapper above)
 *     keep the request; rc = PMPI_Test(...);
 *     if (<completed nothing>) { hprof_poll_counted(run, t0); return rc; }
 *     hprof_poll_resume(&call, run, fn, frame, t0); ... as any wrapper */
void hprof_poll_resume(hprof_call *call, struct hprof_thread *t, int fn, void *frame, uint64_t start);

/* The second half of hprof_call_end() for a measured call: finds the call
 * path and adds the call to its node. Also records the call that opened
 * the measurement (MPI_Init's, or the first session's), which the runtime
 * measures after the fact (lib/lifecycle/runtime.h). */
void hprof_record_call(hprof_call *call);

/* The clock, the sampler's clock and the PAPI events are settled (at the
 * measurement's start, after all three): calls may take the common case's
 * straight path from now on, where these settings allow it. */
void hprof_measure_settle(void);

#endif
