/*
 * locations.h - what the merge reads of the runtime: this rank's locations
 * (live threads, kept ended ones, and the ones ended threads were merged
 * into), each with its calling context tree.
 *
 * Declared here, by the layer that needs it, and implemented by the
 * runtime (lib/thread.c), so that nothing under report/ includes a runtime
 * header. Called at finalize or by the fallback writer, once the thread
 * list is frozen (hprof_thread_freeze): the trees no longer change shape.
 */
#ifndef HPROF_LOCATIONS_H
#define HPROF_LOCATIONS_H

#include <stdint.h>

#include "core/cct.h"
#include "core/path_log.h"

typedef struct location {
    const cct *tree;
    const hprof_path_log *paths; /* its call paths over time (off: e == NULL) */
    int index;              /* 0..hprof_locations_count()-1 */
    uint64_t start_routine; /* what the thread was created to run; 0: unknown */
    uint64_t ended_threads; /* >0: that many ended threads with this start
                             * routine merged into one location */
} location;

/* The name of the runtime's thread trampoline (lib/thread_start.c), the
 * frame below every created thread's own: left out of paths like the C
 * start-up frames. */
extern const char hprof_thread_trampoline[];

/* The number of location indexes. */
int hprof_locations_count(void);

/* Up to max locations into out (newest first); returns how many there are. */
int hprof_locations_get(location *out, int max);

#endif
