/*
 * loader_lock.h - whether some thread holds the lock that dl_iterate_phdr
 * takes (glibc's dl_load_write_lock, also held by dlopen and dlclose while
 * they change the list of loaded objects).
 *
 * libunwind holds its own lock, with every signal blocked, across
 * dl_iterate_phdr. A sample that needs libunwind while its thread holds
 * the loader's lock (inside dlclose, say) waits for libunwind's lock; if
 * another thread holds that one and waits for the loader's lock, both wait
 * for good (seen: a program that opened and closed a library while a
 * second thread started). A signal handler asks here first and does
 * without libunwind while its own thread holds the lock. Held by another
 * thread, libunwind waits for it as the other threads do: that thread is
 * not stopped in a handler.
 *
 * The lock is glibc's private state: it is found once, as the one mutex in
 * the loader's _rtld_global that this thread owns inside dl_iterate_phdr
 * and not outside it. Where it is not found (another libc), the lock
 * reads as free: libunwind is used as before.
 */
#ifndef HPROF_LOADER_LOCK_H
#define HPROF_LOADER_LOCK_H

/* Finds the lock (once per process; not from signal handlers). */
void hprof_loader_lock_find(void);

/* 1 while this thread holds the lock; async-signal-safe. */
int hprof_loader_lock_mine(void);

#endif
