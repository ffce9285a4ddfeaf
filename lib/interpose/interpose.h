/*
 * interpose.h - the libc, pthread, libunwind and loader functions hprof
 * stands in front of (x86_64): lib/interpose/unwinders.c (whatever walks
 * or leaves the stack: the thunk stack's and the exact calls' return
 * addresses go back first) and dlsym.c. lib/exports.map lists them.
 */
#ifndef HPROF_INTERPOSE_H
#define HPROF_INTERPOSE_H

/* Looks up the real functions behind unwinders.c (dlsym); once per
 * process, when the measurement starts, so that signal handlers need no
 * dlsym. Elsewhere than x86_64 nothing is interposed there. */
#if defined(__x86_64__)
void hprof_interpose_resolve(void);
#else
static inline void hprof_interpose_resolve(void)
{
}
#endif

/* While on, each dlsym of the program (not RTLD_NEXT) brings the record
 * of loaded code up to date first (modules_refresh, whose hooks see a
 * library dlopen added before the program calls into it). dlsym is
 * interposed by a stub that jumps to the real one with the caller's return
 * address in place: glibc tells RTLD_NEXT and the caller's namespace by
 * it, which a C wrapper would make libhprof's. hprof's own look-ups go to
 * the loader directly (core/real_dl.h). */
void hprof_dlsym_watch(int on);

#endif
