/*
 * proc_memory.h - a test program's own memory, from /proc/self/status:
 * proc_memory_kb("VmHWM:") for the peak resident size, "VmRSS:" for now.
 */
#ifndef TEST_PROC_MEMORY_H
#define TEST_PROC_MEMORY_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline long proc_memory_kb(const char *field)
{
    char line[256];
    long kb = -1;
    size_t n = strlen(field);
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, field, n) == 0)
            kb = atol(line + n);
    if (f)
        fclose(f);
    return kb;
}

#endif
