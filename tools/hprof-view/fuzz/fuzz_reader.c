/*
 * fuzz_reader.c - libFuzzer target for the CUBE reader (make fuzz).
 *
 * Each input is a candidate .cubex file: it is written to an in-memory
 * file (memfd) and opened by path, as hprof-view does, then every metric
 * is decoded and the tree, flat, ranks, hotspots and JSON views run on it
 * (output to /dev/null). Built with -fsanitize=fuzzer,address,undefined;
 * any crash, sanitizer report or leak is a finding.
 */
#define _GNU_SOURCE
#include "report/cube/reader/cube_reader.h"
#include "tools/hprof-view/view.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    int fd = memfd_create("cubex", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    if (write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    char path[64], err[512];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    cube_profile *p = cube_open(path, err, sizeof err);
    if (p) {
        for (int m = 0; m < p->nmetrics; m++)
            if (cube_load_metric(p, m, err, sizeof err) < 0)
                break;
        view_opts o;
        memset(&o, 0, sizeof o);
        o.path = "fuzz";
        o.err = err;
        o.errlen = sizeof err;
        o.threshold = 0.5;
        o.max_depth = -1;
        o.rank = -1;
        o.default_hide = 1;
        o.top = 5;
        view_tree(p, &o, devnull);
        view_flat(p, &o, devnull);
        view_ranks(p, &o, devnull);
        view_hotspots(p, &o, devnull);
        view_mpi(p, &o, devnull);
        view_json(p, &o, devnull);
        view_folded(p, &o, devnull);
        view_intervals(p, &o, devnull);
        o.fold = "libs"; /* library folding, call site labels */
        view_tree(p, &o, devnull);
        view_flat(p, &o, devnull);
        view_mpi(p, &o, devnull);
        cube_close(p);
    }
    close(fd);
    return 0;
}
