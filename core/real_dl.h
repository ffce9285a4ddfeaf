/*
 * real_dl.h - the loader's own dlsym, past hprof's interposer of it
 * (lib/interpose/dlsym.c). Code below the runtime that looks a symbol up
 * (the real function behind one of hprof's interposers, CPython's
 * symbols) calls this, never dlsym: hprof's dlsym belongs to the runtime
 * floor, and calls from hprof itself must not refresh the record of
 * loaded code as the program's own do.
 */
#ifndef HPROF_REAL_DL_H
#define HPROF_REAL_DL_H

#include <stddef.h>

typedef void *(*hprof_dlsym_fn)(void *handle, const char *name);

/* libc's dlsym (since glibc 2.34; libdl's before), found once with dlvsym
 * (which hprof does not interpose); NULL where there is none. */
hprof_dlsym_fn hprof_loader_dlsym(void);

/* dlsym(handle, name) as the loader answers it. RTLD_NEXT is taken from
 * hprof's own object (libhprof.so, or the program it is linked into): the
 * definition the loader would bind after hprof's. Not from signal
 * handlers (the loader takes its lock). */
void *hprof_dlsym(void *handle, const char *name);

/* The signal hprof samples with (lib/sampling/sampler.c sets it where it moves). */
extern int hprof_loader_quiet_signal;

/* dl_iterate_phdr(cb, data) with that signal held back: a sample whose walk
 * needs libunwind takes the loader's lock too, and one that lands while
 * this thread is taking it (the lock word set, its owner not yet) waits
 * for itself for good (seen at MPI_Init, exact_patch.c's call: the
 * program hung). Every call of hprof's own goes through here. Not from
 * signal handlers. In a forked child (the partial profile's writer, a
 * snapshot) it returns -1 and calls nothing: the lock dl_iterate_phdr takes
 * may have been held by another thread at the fork, and so held for good;
 * callers keep what they knew. */
struct dl_phdr_info; /* <link.h> */
int hprof_loader_iterate(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data);

#endif
