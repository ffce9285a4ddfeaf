/*
 * dlclose.c - the program's dlclose, while hprof measures: the module
 * going is on record before it goes, and what was learned of its code is
 * forgotten after (lib/interpose/dl_watch.c).
 */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "core/real_dl.h"
#include "lib/active.h"
#include "unwind/modules.h"

typedef int (*dlclose_fn)(void *);

__attribute__((visibility("default"))) int dlclose(void *handle)
{
    static dlclose_fn real_dlclose;
    if (!real_dlclose)
        real_dlclose = (dlclose_fn)hprof_dlsym(RTLD_NEXT, "dlclose");
    if (!real_dlclose)
        return -1; /* cannot happen with glibc */
    if (!hprof_active)
        return real_dlclose(handle);
    modules_refresh(); /* what may go is on record */
    modules_settle();  /* and no other thread's hook still patches it */
    int rc = real_dlclose(handle);
    modules_refresh(); /* what went is forgotten, and its addresses tied to it */
    modules_settle();
    return rc;
}
