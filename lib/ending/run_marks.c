/*
 * run_marks.c - the files a rank leaves for hprof-run (see run_marks.h).
 * Called at start-up or from the first unmeasured MPI call, never from a
 * signal handler (but run_marks_partial_begins, whose name is made before);
 * each file is created once and left empty or holding one line, and a
 * folder that cannot be written is ignored.
 */
#include "lib/ending/run_marks.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"

/* HPROF_RUN_MARKS/<kind>.<host>.<pid>, holding `text` */
static void leave_mark(const char *kind, const char *text)
{
    const char *dir = getenv("HPROF_RUN_MARKS");
    if (!dir || !*dir)
        return;
    char host[64] = "host", path[4096];
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    int n = snprintf(path, sizeof path, "%s/%s.%s.%ld", dir, kind, host, (long)getpid());
    if (n < 0 || n >= (int)sizeof path)
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return;
    if (text) {
        ssize_t w = write(fd, text, strlen(text));
        (void)w;
    }
    close(fd);
}

static char writing_path[4096], partial_path[4096], hold_path[4096];

/* dir/kind.<rank>.<host>.<pid> into buf; 0, or -1 when it does not fit. */
static int partial_name(char *buf, size_t len, const char *dir, const char *kind, int rank)
{
    char host[64] = "host";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    int n = snprintf(buf, len, "%s/%s.%d.%s.%ld", dir, kind, rank, host, (long)getpid());
    return n > 0 && (size_t)n < len ? 0 : -1;
}

void run_marks_arm(int rank)
{
    const char *dir = getenv("HPROF_RUN_MARKS");
    if (!dir || !*dir || partial_name(writing_path, sizeof writing_path, dir, "writing", rank) != 0 ||
        partial_name(partial_path, sizeof partial_path, dir, "partial", rank) != 0 ||
        snprintf(hold_path, sizeof hold_path, "%s/hold", dir) >= (int)sizeof hold_path)
        writing_path[0] = partial_path[0] = hold_path[0] = '\0';
}

void run_marks_hold_wait(void)
{
    if (!hold_path[0])
        return;
    for (int waited = 0; waited < 3000 && access(hold_path, F_OK) == 0; waited += 10) {
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
}

int run_marks_in_use(void)
{
    return partial_path[0] != '\0';
}

void run_marks_partial_begins(void)
{
    if (!writing_path[0])
        return;
    int fd = open(writing_path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd >= 0)
        close(fd);
}

void run_marks_partial_writer(void)
{
    if (!writing_path[0])
        return;
    char text[32];
    int n = snprintf(text, sizeof text, "%ld\n", (long)getpid());
    int fd = open(writing_path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return;
    ssize_t w = write(fd, text, (size_t)n);
    (void)w;
    close(fd);
}

/* A mark holding one line, whole when it appears (renamed into place). */
static void leave_whole_mark(const char *mark, const char *path, const char *why)
{
    char tmp[4200], text[4200];
    int n = snprintf(text, sizeof text, path ? "ok %s\n" : "failed %s\n", path ? path : why ? why : "?");
    snprintf(tmp, sizeof tmp, "%s.tmp", mark);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return;
    int whole = n > 0 && write(fd, text, (size_t)n) == n;
    if (close(fd) == 0 && whole)
        rename(tmp, mark);
    else
        unlink(tmp);
}

void run_marks_partial_done(const char *path, const char *why)
{
    if (partial_path[0])
        leave_whole_mark(partial_path, path, why);
}

void run_marks_snapshot_done(const char *seq, int rank, const char *path, const char *why)
{
    const char *dir = getenv("HPROF_RUN_MARKS");
    char kind[128], mark[4096];
    snprintf(kind, sizeof kind, "snap.%s", seq);
    if (dir && *dir && partial_name(mark, sizeof mark, dir, kind, rank) == 0)
        leave_whole_mark(mark, path, why);
}

void run_marks_finalized(void)
{
    leave_mark("finalized", NULL);
}

void run_marks_started(void)
{
    leave_mark("started", NULL);
}

void run_marks_foreign_init(const char *how)
{
    static int said;
    if (__atomic_exchange_n(&said, 1, __ATOMIC_SEQ_CST))
        return;
    hprof_say("not measuring this process: %s", how);
    leave_mark("foreign", how);
}
