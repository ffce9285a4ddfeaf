/*
 * signal_route.h - process-directed signals reach the thread they would
 * reach without hprof.
 *
 * The kernel gives a process-directed signal (kill, alarm/setitimer,
 * SIGCHLD, sigqueue) to the main thread unless that thread blocks it or
 * already has a signal pending while it is not on a CPU; then to some
 * other thread. hprof's sampling timer leaves a signal pending on the
 * main thread now and then (often, where cores are shared), and the
 * program's handler then ran on an MPI library's helper thread: a handler
 * that siglongjmps crashed the program (issue 15). So the handlers the
 * program installs for such signals are reached through a small router: a
 * process-directed signal that lands on another thread while the main
 * thread does not block it is queued again to the main thread, with the
 * same siginfo, and handled there.
 */
#ifndef HPROF_SIGNAL_ROUTE_H
#define HPROF_SIGNAL_ROUTE_H

#include <signal.h>

/* libc's own sigaction, for hprof's internal use (signal_chain.c
 * interposes the program's). */
int real_sigaction(int sig, const struct sigaction *act, struct sigaction *old);

/* sigaction() for a signal hprof does not own: installs the program's
 * action, through the router where it is a handler for a signal that may
 * be process-directed; old gets what the program installed before. */
int signal_route_sigaction(int sig, const struct sigaction *act, struct sigaction *old);

/* From now on (sampling runs) signals are routed; before, the router
 * only calls the program's handler. */
void signal_route_start(void);

#endif
