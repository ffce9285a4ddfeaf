/*
 * dl_watch.h - code unloaded by dlclose while hprof measures: its module
 * stays on record, what was learned of its code is forgotten, and the
 * addresses recorded in it keep its names (lib/interpose/dl_watch.c).
 */
#ifndef HPROF_DL_WATCH_H
#define HPROF_DL_WATCH_H

/* At MPI_Init: records the modules loaded now and starts watching. */
void hprof_dl_watch_start(void);

#endif
