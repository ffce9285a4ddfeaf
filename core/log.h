/*
 * log.h - hprof's own messages: one line each, prefixed "hprof: ", on
 * stderr, from rank 0 only unless HPROF_VERBOSE=2 (then every rank, with its
 * rank number). Written with write(2) so a message never interleaves with
 * the program's buffered stdio.
 */
#ifndef HPROF_LOG_H
#define HPROF_LOG_H

void hprof_log_set_rank(int rank);
int hprof_log_rank(void);
/* HPROF_VERBOSE as read (core/config.c tells it; 0 before). */
void hprof_log_set_verbose(int level);

/* A message for the user, from rank 0 (and all ranks at verbosity 2). */
void hprof_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A message printed only at HPROF_VERBOSE >= level. */
void hprof_verbose(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
