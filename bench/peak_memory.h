/*
 * peak_memory.h - the process's resident memory in KB from
 * /proc/self/status, -1 where it does not say: its peak (VmHWM), which
 * the merge benchmarks print for rank 0 before and after the phase they
 * measure, and its current size (VmRSS), which the soak follows.
 */
#ifndef HPROF_BENCH_PEAK_MEMORY_H
#define HPROF_BENCH_PEAK_MEMORY_H

#include <stdio.h>
#include <string.h>

/* field: "VmHWM:", "VmRSS:" */
static long status_kb(const char *field)
{
    char line[256];
    long kb = -1;
    size_t len = strlen(field);
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, field, len) == 0)
            sscanf(line + len, "%ld", &kb);
    if (f)
        fclose(f);
    return kb;
}

static inline long peak_kb(void)
{
    return status_kb("VmHWM:");
}

#endif
