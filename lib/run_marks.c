/*
 * run_marks.c - the files a rank leaves for hprof-run (see run_marks.h).
 * Called at start-up or from the first unmeasured MPI call, never from a
 * signal handler; each file is created once and left empty or holding one
 * line, and a folder that cannot be written is ignored.
 */
#include "lib/run_marks.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
