/*
 * interpose.h - hprof's own way past its interposers (interpose.c), x86_64.
 *
 * unw_backtrace and the stack walkers are interposed to put the thunk
 * stack's return addresses back first. hprof's own fallback walks call the
 * real unw_backtrace instead, and mark the thread as inside its own walk.
 * All are async-signal-safe once hprof_interpose_resolve() has run.
 */
#ifndef HPROF_INTERPOSE_H
#define HPROF_INTERPOSE_H

/* Looks up the real functions (dlsym); once per process, at the start of
 * the measurement on a thread, so that signal handlers need no dlsym. */
void hprof_interpose_resolve(void);

/* libunwind's own unw_backtrace; the caller has put the originals back. */
int hprof_real_unw_backtrace(void **buffer, int size);

/* Around hprof's own libunwind walk on this thread: entering 1 until
 * libunwind has made its cursor, 0 once inside. */
void hprof_own_walk_begin(int entering);
void hprof_own_walk_end(void);
/* The main thread is inside hprof's own walk, where libunwind masks every
 * signal: a process-directed signal that went elsewhere belongs to it. */
int hprof_main_in_own_walk(void);

/* While on, each dlsym of the program (not RTLD_NEXT) brings the record
 * of loaded code up to date first (modules_refresh, whose hooks see a
 * library dlopen added before the program calls into it). dlsym is
 * interposed by a stub that jumps to the real one with the caller's return
 * address in place: glibc tells RTLD_NEXT and the caller's namespace by
 * it, which a C wrapper would make libhprof's. */
void hprof_dlsym_watch(int on);

#endif
