/*
 * active.c - the measurement's state that the whole runtime reads (active.h).
 */
#include "lib/active.h"

volatile int hprof_active;
unsigned char *hprof_fn_nounwind;
int hprof_abort_fn = -1;
