/*
 * own_walk.h - hprof's own libunwind walks (libunwind_walk.c), x86_64.
 *
 * unw_backtrace and libunwind's cursors are interposed (lib/interpose/
 * unwinders.c) to put the thunk stack's return addresses back first.
 * hprof's own fallback walks call the real libunwind instead, found here,
 * and mark the thread as inside its own walk, which the interposers read
 * (own_walk_state). All are async-signal-safe once own_walk_resolve() has
 * run.
 *
 * Signal masks: libunwind (built with its default, block-signals) sets a
 * full signal mask around dl_iterate_phdr and its internal locks, and it
 * must: a handler that siglongjmps out of a walk holding libunwind's lock
 * leaves it held, and the next walk waits forever
 * (tests/mpi/reliability_sigalrm.sh can hang when those masks are no-ops). In
 * hprof's own walks on the main thread that mask would hand a
 * process-directed signal (SIGALRM, SIGCHLD, ...) to another thread, an MPI
 * library's helper; so the walk says so (hprof_main_in_own_walk) and the
 * signal router (lib/signals/signal_route.c) queues such a signal back to the main
 * thread, where it is handled once the walk is over. A handler on the same
 * thread that would enter libunwind during hprof's walk is refused too:
 * libunwind entered by anything else during that walk gets an error
 * (unw_init_local*) or no frames (unw_backtrace).
 */
#ifndef HPROF_OWN_WALK_H
#define HPROF_OWN_WALK_H

/* This thread's own walk: OWN_ENTERING until libunwind has made its cursor
 * (the real unw_backtrace calls unw_init_local through the PLT, into the
 * interposer, which moves it on to OWN_INSIDE), then OWN_INSIDE. */
enum {
    OWN_NONE,
    OWN_ENTERING,
    OWN_INSIDE
};
extern __thread int own_walk_state __attribute__((tls_model("initial-exec"), visibility("hidden")));

/* Finds the real libunwind functions below (once per process; at a
 * thread's set-up, so that signal handlers need no dlsym; before that, on
 * first use). */
void own_walk_resolve(void);

/* libunwind's own unw_backtrace, inside hprof's own walk; the caller has
 * put the originals back. */
int hprof_real_unw_backtrace(void **buffer, int size);

/* libunwind's own unw_init_local2 (a cursor for hprof's own walk: call it
 * between hprof_own_walk_begin(0) and hprof_own_walk_end). */
int hprof_real_unw_init_local2(void *cursor, void *context, int flag);

/* Around hprof's own libunwind walk on this thread: entering 1 until
 * libunwind has made its cursor, 0 once inside. */
void hprof_own_walk_begin(int entering);
void hprof_own_walk_end(void);
/* The main thread is inside hprof's own walk, where libunwind masks every
 * signal: a process-directed signal that went elsewhere belongs to it. */
int hprof_main_in_own_walk(void);

#endif
