#define _GNU_SOURCE
#include "report/profile/program_id.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static char job_name[4096], job_command[4096];

void program_id_set(const char *basename, const char *command_line)
{
    snprintf(job_name, sizeof job_name, "%s", basename);
    snprintf(job_command, sizeof job_command, "%s", command_line);
}

const char *program_basename(void)
{
    if (job_name[0])
        return job_name;
    const char *s = program_invocation_short_name;
    return s && *s ? s : "app";
}

void program_command_line(char *buf, size_t len)
{
    buf[0] = '\0';
    if (job_command[0]) {
        snprintf(buf, len, "%s", job_command);
        return;
    }
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n <= 0)
        return;
    for (ssize_t i = 0; i < n; i++)
        if (buf[i] == '\0')
            buf[i] = ' ';
    while (n > 0 && buf[n - 1] == ' ')
        n--;
    buf[n] = '\0';
}
