/*
 * modules.h - the objects loaded in this process (the program, its shared
 * libraries, the vDSO, what dlopen added), as the dynamic loader lists them
 * (dl_iterate_phdr), each recorded with its file and address range when it
 * is first seen and kept after it is unloaded: an address recorded while a
 * module was mapped is named after that module, not after whatever is
 * mapped there later. /proc/self/maps is not used: libelf's own mappings
 * of the ELF files it reads show up there like loaded objects.
 *
 * Not from signal handlers (takes a lock, allocates).
 */
#ifndef HPROF_MODULES_H
#define HPROF_MODULES_H

#include <stdint.h>

typedef struct module_rec {
    char *path;         /* the file ("[vdso: PID]" for the vDSO: libdwfl reads that process) */
    uint64_t bias;      /* load bias: run-time address - ELF address */
    uint64_t low, high; /* [low, high): its loadable segments */
    int live;           /* still loaded when last looked */
} module_rec;

/* What hooks learn of a change: module id appeared (live) or went. */
typedef void (*module_hook)(int id, const module_rec *m, int live);

/* Called (outside the registry's lock) for each module that appears or
 * goes, in the order seen; at most 4 hooks. */
void modules_add_hook(module_hook hook);

/* Brings the record up to date with the loader's list: cheap (one
 * dl_iterate_phdr callback) when nothing was loaded or unloaded since the
 * last look. */
void modules_refresh(void);

/* Returns when the hooks of every change recorded so far have run, by
 * whichever thread's refresh found it: for the program's dlsym and dlclose,
 * which must not call code a hook is still patching, nor unmap it. Not for
 * a thread that holds a lock a hook takes; never longer than
 * MODULES_SETTLE_S seconds (then one line says so). */
#define MODULES_SETTLE_S 10
void modules_settle(void);

/* Changes with every module that appeared or went. */
uint64_t modules_generation(void);

/* The name a module's path is shown by in a profile: the path itself, but
 * "[vdso]" for the vDSO's "[vdso: PID]", so that every rank's vDSO is one
 * module and its functions one region each, whatever the process. */
const char *modules_shown_name(const char *path);

/* Number of modules ever recorded (ids 0..count-1), and the record of one
 * (a copy; 0, or -1 for a bad id). */
int modules_count(void);
int modules_get(int id, module_rec *out);

struct Dwfl;
/* Reports every live module to dwfl (between dwfl_report_begin and
 * dwfl_report_end, which the caller calls), or module id alone when id >= 0.
 * 0, or -1 if libdwfl refused one. */
int modules_report(struct Dwfl *dwfl, int id);
/* A new libdwfl session for this process's own code (ELF files and debug
 * files found the standard way: build-id, debuglink); NULL on failure. */
struct Dwfl *modules_dwfl_begin(void);

#endif
