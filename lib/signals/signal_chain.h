/*
 * signal_chain.h - the program keeps its signals. While hprof samples on a
 * signal, the program's sigaction()/signal() calls for that signal are
 * recorded instead of replacing hprof's handler, and every instance of the
 * signal that is not hprof's own timer (the program's ITIMER_PROF, a kill)
 * is passed to the handler the program asked for, or gets the action it
 * asked for (ignore, default).
 */
#ifndef HPROF_SIGNAL_CHAIN_H
#define HPROF_SIGNAL_CHAIN_H

#include <signal.h>

/* real_sigaction, libc's own sigaction; signals hprof does not own go
 * through the router */
#include "lib/signals/signal_route.h"

/* From now on sig is hprof's (at most two signals); program_action is what
 * the program had. */
void signal_chain_take(int sig, const struct sigaction *program_action);

/* moved(sig) is called (in the program's thread, at its sigaction() call)
 * when the program installs a handler of its own for a signal hprof owns. */
void signal_chain_on_program_handler(void (*moved)(int sig));

/* Gives the signals back to plain libc handling (a child that is no
 * longer measured). */
void signal_chain_release(void);

/* The program's sigaction (lib/interpose/signals.c): recorded for a
 * signal hprof owns, else on to the signal router (signal_route.h). */
int signal_chain_sigaction(int sig, const struct sigaction *act, struct sigaction *old);

/* Delivers a signal that is not hprof's to the program's action. */
void signal_chain_forward(int sig, siginfo_t *info, void *ucontext);

#endif
