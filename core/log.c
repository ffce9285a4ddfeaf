#include "core/log.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int log_rank = -1; /* -1: not known yet (before MPI_Init) */
/* HPROF_VERBOSE, told by config.c as it reads it: log sits below config,
 * which says what is wrong with the variables through it. */
static int log_verbose;

void hprof_log_set_rank(int rank)
{
    log_rank = rank;
}
int hprof_log_rank(void)
{
    return log_rank;
}
void hprof_log_set_verbose(int level)
{
    log_verbose = level;
}

/* HPROFTEST_LOG=FILE: each line also appended to FILE, in one write. The
 * launchers forward the ranks' stderr in chunks that can split a line
 * between two ranks; tests that read every rank's lines read them here. */
static void emit_copy(const char *line, size_t n)
{
    static int fd = -2;
    if (fd == -2) {
        const char *path = getenv("HPROFTEST_LOG");
        fd = path && *path ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
    }
    if (fd >= 0) {
        ssize_t w = write(fd, line, n);
        (void)w;
    }
}

static void emit(const char *fmt, va_list ap)
{
    char line[1024];
    int n;
    if (log_verbose >= 2 && log_rank >= 0)
        n = snprintf(line, sizeof line, "hprof: [rank %d] ", log_rank);
    else
        n = snprintf(line, sizeof line, "hprof: ");
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    if (m < 0)
        return;
    n += m;
    if (n > (int)sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, (size_t)n);
    (void)w;
    emit_copy(line, (size_t)n);
}

/* Rank 0 speaks; with HPROF_VERBOSE=2 every rank does. */
static int this_rank_speaks(void)
{
    return log_rank <= 0 || log_verbose >= 2;
}

void hprof_say(const char *fmt, ...)
{
    if (!this_rank_speaks())
        return;
    va_list ap;
    va_start(ap, fmt);
    emit(fmt, ap);
    va_end(ap);
}

void hprof_verbose(int level, const char *fmt, ...)
{
    if (log_verbose < level || !this_rank_speaks())
        return;
    va_list ap;
    va_start(ap, fmt);
    emit(fmt, ap);
    va_end(ap);
}
