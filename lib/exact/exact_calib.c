#define _GNU_SOURCE
/*
 * exact_calib.c - see exact_calib.h.
 */
#include "lib/exact/exact_calib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/cct.h"
#include "lib/exact/exact_calib_code.h"
#include "lib/exact/exact_entry.h"
#include "lib/exact/exact_patch.h"
#include "lib/exact/exact_sites.h"
#include "lib/threads/thread.h"
#include "unwind/exact_stack.h"
#include "unwind/unwind.h"

#define CALLS 20000 /* a round: about a millisecond measured */
#define ROUNDS 5

static void setup(exact_calib_run *run)
{
    hprof_self = run->ctx; /* this thread's calls counted in a tree of its own */
    /* its unwinding state made here: an exact entry on a thread without one
     * and with signals blocked (this one) takes it for a signal handler's
     * and measures nothing (exact_entry.c) */
    unwind_thread_init();
}

static void teardown(exact_calib_run *run)
{
    (void)run;
    hprof_self = NULL;
    unwind_thread_end(); /* the return addresses its walk redirected put back, its state freed */
}

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

/* The loops, on a thread of their own (no location of the profile, every
 * signal blocked) with a call tree of its own. ns a visit, or -1. */
static double timed_on_scratch_thread(void)
{
    create_fn create = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
    hprof_thread *scratch = calloc(1, sizeof *scratch);
    if (!create || !scratch || cct_init(&scratch->tree, 256, 4096) != 0) {
        free(scratch);
        return -1;
    }
    exact_calib_run run = { setup, teardown, scratch, CALLS, ROUNDS, 0, 0 };
    sigset_t all;
    sigfillset(&all);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setsigmask_np(&attr, &all);
    pthread_t id;
    int rc = create(&id, &attr, exact_calib_thread, &run);
    pthread_attr_destroy(&attr);
    if (rc == 0)
        pthread_join(id, NULL);
    cct_free(&scratch->tree);
    free(scratch);
    if (rc != 0)
        return -1;
    return run.measured_ns > run.plain_ns ? (double)(run.measured_ns - run.plain_ns) / CALLS : 0.01;
}

double exact_calibrate(uint32_t id, char *err, int errlen)
{
    exact_site site;
    exact_stubs stubs;
    uint64_t fn = (uint64_t)(uintptr_t)exact_calib_measured;
    if (exact_site_at(fn, 16, "exact_calib_measured", &site) != 0) {
        snprintf(err, (size_t)errlen, "hprof's own calibration function has no patchable entry");
        return -1;
    }
    if (exact_stubs_make(&stubs, fn, fn + 16, id, 1, (uint64_t)(uintptr_t)hprof_exact_entry) != 0) {
        snprintf(err, (size_t)errlen, "no room for an entry stub near hprof's code");
        free(site.name);
        return -1;
    }
    exact_code_add(stubs.base - EXACT_STUB_SIZE, stubs.base - EXACT_STUB_SIZE + stubs.len);
    exact_fn *f = exact_fn_at(id);
    f->resume = site.jmp_at + 2;
    f->key = site.fn + 1;
    f->on = 1;
    uint64_t stub = exact_stub_addr(&stubs, 0);
    int which = 0;
    double ns = -1;
    char why[200];
    if (exact_patch(&site, &stub, &which, 1, 1, why, sizeof why) != 0) {
        snprintf(err, (size_t)errlen, "%s", why);
    } else {
        ns = timed_on_scratch_thread();
        if (ns < 0)
            snprintf(err, (size_t)errlen, "no thread to measure it on");
        exact_patch(&site, &stub, &which, 1, 0, why, sizeof why);
    }
    f->on = 0;
    free(site.name);
    return ns;
}
