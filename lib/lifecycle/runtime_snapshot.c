#include "lib/lifecycle/runtime_snapshot.h"

#include <stdlib.h>
#include <string.h>

#include "lib/sampling/papi_events.h"
#include "lib/threads/thread.h"

int runtime_snapshot_take(runtime_snapshot *rs)
{
    memset(rs, 0, sizeof *rs);
    int n = hprof_thread_snapshot(NULL, 0), nev = hprof_event_defs(NULL, 0);
    rs->threads = calloc((size_t)n + 1, sizeof *rs->threads);
    rs->events = calloc((size_t)nev + 1, sizeof *rs->events);
    if (!rs->threads || !rs->events) {
        runtime_snapshot_release(rs);
        rs->s.nlocations = 1; /* this rank stays in the profile, with nothing */
        return -1;
    }
    int got = hprof_thread_snapshot(rs->threads, n), got_ev = hprof_event_defs(rs->events, nev);
    rs->s = (hprof_snapshot){
        rs->threads, got < n ? got : n,           hprof_thread_count(),  hprof_thread_trampoline,
        rs->events,  got_ev < nev ? got_ev : nev, hprof_events_counted()
    };
    return 0;
}

void runtime_snapshot_release(runtime_snapshot *rs)
{
    free(rs->threads);
    free(rs->events);
    memset(rs, 0, sizeof *rs);
}
