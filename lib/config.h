/*
 * config.h - hprof's settings, read once from HPROF_* environment variables
 * at MPI_Init. Every value is validated: a bad one gets a one-line message
 * naming the variable and what it accepts, and the default is used.
 */
#ifndef HPROF_CONFIG_H
#define HPROF_CONFIG_H

#include <stdint.h>

enum hprof_sampling_clock { HPROF_CLOCK_WALL, HPROF_CLOCK_CPU };

typedef struct hprof_config_t {
    const char *output;        /* HPROF_OUTPUT, NULL: choose a new name */
    int sampling_hz;           /* HPROF_SAMPLING_HZ, 0 = off */
    int sampling_clock;        /* HPROF_SAMPLING_CLOCK */
    const char *nounwind;      /* HPROF_NOUNWIND, NULL: the default set */
    int thunks;                /* HPROF_THUNKS */
    const char *metrics;       /* HPROF_METRICS, NULL: none */
    int verbose;               /* HPROF_VERBOSE */
    uint32_t max_nodes;        /* HPROF_MAX_CALLPATHS: call-tree nodes per thread */
} hprof_config_t;

extern hprof_config_t hprof_config;

/* Reads and validates the environment; prints problems through hprof_say
 * (so call after the rank is known). */
void hprof_config_load(void);

#endif
