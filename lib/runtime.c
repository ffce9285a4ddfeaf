/*
 * runtime.c - the measurement's life: started by the MPI_Init wrappers,
 * stopped by the MPI_Finalize wrapper, which merges and writes the profile.
 * Nothing happens in a process that never calls MPI_Init (mpirun itself,
 * or any other program that has the library preloaded).
 */
#include "runtime.h"

#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fn_table.h"
#include "log.h"
#include "measure.h"
#include "merge.h"
#include "nounwind.h"
#include "thread.h"

volatile int hprof_active;
unsigned char *hprof_fn_nounwind;

static int started;

void hprof_record_call(hprof_call *call, const void *wrapper_ret);

static void read_command_line(char *buf, size_t len)
{
    buf[0] = '\0';
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

void hprof_runtime_start(int fn, uint64_t start_ns)
{
    if (started)
        return;
    started = 1;
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    hprof_log_set_rank(rank);
    hprof_config_load();
    hprof_fn_nounwind = nounwind_parse(hprof_config.nounwind);
    if (!hprof_thread_get()) {
        hprof_say("out of memory at start-up; measurement is off");
        return;
    }
    hprof_active = 1;
    /* The init call itself is recorded like any MPI call. */
    hprof_call call = { .start_ns = start_ns, .fn = fn, .measured = 1 };
    hprof_record_call(&call, __builtin_return_address(0));
}

void hprof_runtime_stop(void)
{
    if (!hprof_active)
        return;
    hprof_active = 0;
    char command[2048], date[64], hz[32];
    read_command_line(command, sizeof command);
    time_t now = time(NULL);
    struct tm tm;
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S%z", localtime_r(&now, &tm));
    snprintf(hz, sizeof hz, "%d", hprof_config.sampling_hz);
    const char *keys[] = { "hprof::version", "hprof::command", "hprof::date",
                           "hprof::sampling_hz", "hprof::sampling_clock" };
    const char *values[] = { HPROF_VERSION, command, date, hz,
                             hprof_config.sampling_clock == HPROF_CLOCK_CPU ? "cpu" : "wall" };
    merge_info info = { hprof_config.output, keys, values, 5 };
    hprof_merge_and_write(&info);
}
