#define _GNU_SOURCE
/*
 * dl_watch.c - code that dlclose unloads: dlclose is interposed
 * (lib/interpose/dlclose.c) so that the module going is on record (name, range) before it goes, and afterwards
 * what was learned of its code is forgotten and the addresses recorded in
 * it are tied to it (unwind/modules.h hooks: recipe_forget,
 * hprof_thread_forget_code). Code that dlopen adds needs nothing here: the
 * first walk through it finds the loader's list changed.
 *
 * dlopen itself is not interposed: glibc resolves a relative name with the
 * RUNPATH of the object that calls dlopen, which would become libhprof.
 */
#include <stdint.h>

#include "lib/interpose/dl_watch.h"
#include "unwind/modules.h"
#include "lib/active.h"
#include "lib/threads/thread.h"

static void on_module_change(int id, const module_rec *m, int live)
{
    if (!live)
        hprof_thread_forget_code(id, m->low, m->high);
}

void hprof_dl_watch_start(void)
{
    modules_add_hook(on_module_change);
    modules_refresh();
}
